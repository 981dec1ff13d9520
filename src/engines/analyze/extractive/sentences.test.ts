import { describe, expect, it } from 'vitest';
import { splitSentences } from './sentences.js';

describe('splitSentences', () => {
  it('does not break on abbreviations, initials or decimals', () => {
    expect(
      splitSentences(
        'Dr. Lindqvist spoke, e.g. about costs of 4.2 million. J. Smith agreed! Did he? Yes.\nA new line starts here',
        10,
      ),
    ).toEqual([
      'Dr. Lindqvist spoke, e.g. about costs of 4.2 million.',
      'J. Smith agreed!',
      'Did he?',
      'Yes.',
      'A new line starts here',
    ]);
  });

  it('keeps closing quotes with their sentence and stops at the cap', () => {
    expect(splitSentences('He said "It works." Then he left. More.', 2)).toEqual([
      'He said "It works."',
      'Then he left.',
    ]);
  });
});
