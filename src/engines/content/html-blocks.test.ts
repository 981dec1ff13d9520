import { describe, expect, it } from 'vitest';
import { blockTagsFor } from './html-blocks.js';

// The blocks every reader takes; each reader's own are listed beside them.
const SHARED = [
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'DIV',
  'DL',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'TABLE',
  'UL',
];
const sorted = (tags: Iterable<string>) => [...tags].sort();

describe('blockTagsFor', () => {
  it('gives plain text the line breaks and the parts of lists, figures and table rows, not details', () => {
    expect(sorted(blockTagsFor('plain-text'))).toEqual(
      sorted([...SHARED, 'BR', 'HR', 'DD', 'DT', 'FIGCAPTION', 'TR', 'TD', 'TH']),
    );
  });

  it('gives the text counts every container of text, the page top and the table parts included', () => {
    expect(sorted(blockTagsFor('text-blocks'))).toEqual(
      sorted([
        ...SHARED,
        'DETAILS',
        'DD',
        'DT',
        'FIGCAPTION',
        'TR',
        'TD',
        'TH',
        'HTML',
        'BODY',
        'CAPTION',
        'THEAD',
        'TBODY',
        'TFOOT',
        'SUMMARY',
        'CENTER',
        'FIELDSET',
      ]),
    );
  });

  it('gives the digest the shared blocks and details, reading cells, dd and figcaption as units of their own', () => {
    expect(sorted(blockTagsFor('digest'))).toEqual(sorted([...SHARED, 'DETAILS']));
  });
});
