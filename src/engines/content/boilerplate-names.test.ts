import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { furnitureName, hasContentName, isIngredientList } from './boilerplate-names.js';

const element = (attributes: string) =>
  parseHTML(`<!DOCTYPE html><html><body><div ${attributes}></div></body></html>`).document.querySelector(
    'div',
  ) as Element;

describe('furnitureName', () => {
  it('names comment threads apart from other furniture', () => {
    expect(furnitureName(element('id="comments"'))).toBe('thread');
    expect(furnitureName(element('class="wpdiscuz-comment-list"'))).toBe('thread');
    expect(furnitureName(element('class="sharedaddy sd-sharing-enabled"'))).toBe('furniture');
    expect(furnitureName(element('class="jp-relatedposts"'))).toBe('furniture');
    expect(furnitureName(element('class="entry-meta"'))).toBe('furniture');
    expect(furnitureName(element('class="nav-main"'))).toBe('furniture');
  });

  it('matches short words only as whole parts of a name', () => {
    expect(furnitureName(element('class="ad-slot"'))).toBe('furniture');
    expect(furnitureName(element('class="heading shadow"'))).toBeNull();
    expect(furnitureName(element('class="canvas"'))).toBeNull();
  });

  it('names consent notices apart from other furniture', () => {
    expect(furnitureName(element('id="eu-cookie-law"'))).toBe('consent');
    expect(furnitureName(element('class="gdpr-banner"'))).toBe('consent');
  });

  it("reads a page builder's block names after its prefix", () => {
    expect(furnitureName(element('class="elementor-widget elementor-widget-text-editor"'))).toBeNull();
    expect(furnitureName(element('class="elementor-widget elementor-widget-share-buttons"'))).toBe(
      'furniture',
    );
  });

  it('names teasers apart, for the caller to tell a standfirst from another page', () => {
    expect(furnitureName(element('class="article-teaser"'))).toBe('teaser');
    expect(furnitureName(element('class="teaser related"'))).toBe('furniture');
  });

  it('takes a class for hiding only when it hides the element itself, on every screen', () => {
    expect(furnitureName(element('class="hidden"'))).toBe('furniture');
    expect(furnitureName(element('class="field field--label-hidden"'))).toBeNull();
    expect(furnitureName(element('class="hidden-xs"'))).toBeNull();
  });

  it('reads no short furniture word in a BEM modifier, which says what a block carries, not what it is', () => {
    expect(furnitureName(element('class="report__section report__section--ads"'))).toBeNull();
    expect(furnitureName(element('class="card--date"'))).toBeNull();
    expect(furnitureName(element('class="ad-slot--top"'))).toBe('furniture');
    expect(furnitureName(element('class="box--sidebar"'))).toBe('furniture');
  });

  it('never names an article body furniture, whatever else the name holds', () => {
    expect(furnitureName(element('class="post-content-footer"'))).toBeNull();
    expect(furnitureName(element('class="entry-content"'))).toBeNull();
  });
});

describe('hasContentName', () => {
  it('knows article bodies by class, id or itemprop', () => {
    expect(hasContentName(element('class="article__body"'))).toBe(true);
    expect(hasContentName(element('id="story-body"'))).toBe(true);
    expect(hasContentName(element('itemprop="articleBody"'))).toBe(true);
    expect(hasContentName(element('class="sidebar"'))).toBe(false);
  });
});

describe('isIngredientList', () => {
  it("knows a recipe's ingredients by class, id or itemprop", () => {
    expect(isIngredientList(element('class="wprm-recipe-ingredients"'))).toBe(true);
    expect(isIngredientList(element('itemprop="recipeIngredient"'))).toBe(true);
    expect(isIngredientList(element('class="recipe-steps"'))).toBe(false);
  });
});
