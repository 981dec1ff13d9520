import { describe, expect, it } from 'vitest';
import { candidateLinks, scopeOf, URLS_PER_TURN } from './frontier.js';

const scope = {
  url: 'https://site.example/',
  includePaths: ['/docs/*'],
  excludePaths: ['/docs/private/*'],
  allowSubdomains: false,
  allowExternal: false,
  ignoreQueryParams: false,
};

describe('candidateLinks', () => {
  it('spells each link once, keeps the scope, in the order found, across turns of the event loop', async () => {
    const count = URLS_PER_TURN * 3 + 7;
    const links = Array.from({ length: count }, (_, i) =>
      i % 3 === 0 ? `https://site.example/docs/${i}#top` : `https://site.example/docs/${i}?utm_source=x`,
    );
    links.push(
      'https://site.example/docs/0',
      'https://other.example/docs/1',
      'https://site.example/docs/private/a',
    );
    const found = await candidateLinks(links, scope, scopeOf(scope), links.length);
    expect(found).toEqual(Array.from({ length: count }, (_, i) => `https://site.example/docs/${i}`));
  });

  it('reads no more than maxLinks of them', async () => {
    const links = Array.from({ length: 2 * URLS_PER_TURN }, (_, i) => `https://site.example/docs/${i}`);
    const found = await candidateLinks(links, scope, undefined, URLS_PER_TURN + 1);
    expect(found).toHaveLength(URLS_PER_TURN + 1);
    expect(found.at(-1)).toBe(`https://site.example/docs/${URLS_PER_TURN}`);
  });

  it('lets other work run while it reads a long list', async () => {
    const links = Array.from({ length: 4 * URLS_PER_TURN }, (_, i) => `https://site.example/docs/${i}`);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      await candidateLinks(links, scope, undefined, links.length);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
