import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { isJsonLdScript, JSON_LD_MAX_DEPTH, JSON_LD_MAX_NODES, readJsonLd } from './json-ld.js';

const page = (...scripts: string[]) =>
  parseHTML(`<!DOCTYPE html><html><head>${scripts.join('')}</head><body></body></html>`).document;
const script = (value: unknown, type = 'application/ld+json') =>
  `<script type="${type}">${typeof value === 'string' ? value : JSON.stringify(value)}</script>`;

describe('readJsonLd', () => {
  it('reads scripts typed application/ld+json in any case, with surrounding spaces, and no others', () => {
    const document = page(
      script({ n: 1 }),
      script({ n: 2 }, 'APPLICATION/LD+JSON'),
      script({ n: 3 }, ' application/ld+json '),
      script({ n: 4 }, 'application/json'),
      script({ n: 5 }, 'application/ld+json; charset=utf-8'),
      '<script>{"n": 6}</script>',
    );
    expect(readJsonLd(document).values).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    const scripts = Array.from(document.querySelectorAll('script'));
    expect(scripts.map(isJsonLdScript)).toEqual([true, true, true, false, false, false]);
  });

  it('takes top-level objects, array items and @graph items as nodes, and skips broken or unbounded scripts', () => {
    const deep = `${'['.repeat(JSON_LD_MAX_DEPTH + 1)}${']'.repeat(JSON_LD_MAX_DEPTH + 1)}`;
    const { values, nodes } = readJsonLd(
      page(
        script('{ broken'),
        script(deep),
        script({ '@type': 'Article', padding: 'x'.repeat(1_000_001) }),
        script([{ '@id': 'a' }, 'text', { '@graph': [{ '@id': 'b' }, [{ '@id': 'nested' }]] }]),
        script({ '@id': 'c', '@graph': { '@id': 'd' } }),
      ),
    );
    expect(values).toHaveLength(2);
    expect(nodes.map((node) => node['@id'])).toEqual(['a', undefined, 'b', 'c', 'd']);
  });

  it(`reads at most ${JSON_LD_MAX_NODES} nodes, and no script after the one that reaches them`, () => {
    const many = Array.from({ length: JSON_LD_MAX_NODES - 1 }, (_, i) => ({ i }));
    const { values, nodes } = readJsonLd(
      page(script(many), script([{ i: 'last' }, { i: 'over' }]), script({})),
    );
    expect(nodes).toHaveLength(JSON_LD_MAX_NODES);
    expect(nodes.at(-1)).toEqual({ i: 'last' });
    expect(values).toHaveLength(2);
  });

  it('reads a document once: its readers share the result', () => {
    const document = page(script({ '@type': 'Organization' }));
    expect(readJsonLd(document)).toBe(readJsonLd(document));
    expect(readJsonLd(page(script({})))).not.toBe(readJsonLd(document));
  });
});
