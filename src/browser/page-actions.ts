import type { ElementHandle, HTTPRequest, KeyInput, Page } from 'puppeteer-core';
import { invalidParam, WebcapError } from '../errors.js';
import { type Encoding, fullPageShot, type ImageShot, viewportShot } from './screenshot.js';

/** One step of `actions` (docs/capture.md, "Acting on the page"), as the request layer checked it. */
export type PageAction =
  | { readonly type: 'wait'; readonly milliseconds: number }
  | { readonly type: 'wait_for_selector'; readonly selector: string }
  | { readonly type: 'click'; readonly selector: string; readonly all: boolean }
  | { readonly type: 'hover'; readonly selector: string }
  | { readonly type: 'type'; readonly selector: string; readonly text: string }
  | { readonly type: 'press'; readonly key: string }
  | { readonly type: 'scroll'; readonly direction: 'down' | 'up'; readonly amount: number | null }
  | { readonly type: 'scroll_into_view'; readonly selector: string }
  | { readonly type: 'evaluate'; readonly script: string }
  | { readonly type: 'screenshot'; readonly fullPage: boolean };

/** A step and the name the caller knows it by in errors and warnings: `actions[3]`, or `click`. */
export interface NamedAction {
  readonly name: string;
  readonly action: PageAction;
  /**
   * What a script that throws becomes: the `scripts` parameter's warning (the page is still
   * captured), or an action's failure.
   */
  readonly scriptFailure: 'warn' | 'fail';
}

/** The steps of one call, and what a selector that matches nothing does. */
export interface PageActions {
  readonly steps: readonly NamedAction[];
  /** A selector that matches nothing skips its step with a warning instead of failing the call. */
  readonly ignoreMissingSelectors: boolean;
}

/** How the `screenshot` steps shoot: the engine's image encoding, and the full page's height bound. */
export interface StepShots {
  readonly encoding: Encoding;
  readonly maxFullPageHeightPx: number;
}

interface ActionOptions {
  /** How long a wait_for_selector step, and the load after a step that navigates, may take. */
  readonly waitTimeoutMs: number;
  readonly ignoreMissingSelectors: boolean;
  /** Null where no screenshot step is taken (the request layer refuses them there). */
  readonly shots: StepShots | null;
}

/** What the steps left besides the page: warnings of steps skipped or failed softly, and the screenshots taken, in order. */
export interface ActionsRun {
  readonly warnings: readonly string[];
  readonly shots: readonly ImageShot[];
}

/** Puppeteer's messages for an element it cannot click, hover or type into (hidden, detached, not an element). */
const UNACTIONABLE = [
  'not clickable',
  'not an Element',
  'detached',
  'No node found',
  'not visible',
  'no box',
];

/** At most this many elements are clicked by one `click` step with `all`. */
const MAX_CLICKS = 100;

/** Runs the steps in order on a loaded page. */
export async function runActions(
  page: Page,
  { steps, ignoreMissingSelectors }: PageActions,
  waitTimeoutMs: number,
  shots: StepShots | null,
): Promise<ActionsRun> {
  const options: ActionOptions = { waitTimeoutMs, ignoreMissingSelectors, shots };
  const warnings: string[] = [];
  const taken: ImageShot[] = [];
  for (const step of steps) {
    if (step.action.type === 'screenshot') {
      taken.push(await stepShot(page, step.action.fullPage, options.shots));
      continue;
    }
    const warning = await runStep(page, step, options);
    if (warning !== null) warnings.push(warning);
  }
  return { warnings, shots: taken };
}

/** A `screenshot` step: the viewport, or the whole page as a full-page capture takes it. */
async function stepShot(page: Page, fullPage: boolean, shots: StepShots | null): Promise<ImageShot> {
  if (shots === null) throw new Error('a screenshot step reached an engine that takes none');
  return fullPage
    ? fullPageShot(page, shots.encoding, shots.maxFullPageHeightPx)
    : viewportShot(page, shots.encoding);
}

function isAction({ name }: NamedAction): boolean {
  return name.startsWith('actions[');
}

/** How errors and warnings name a step: `actions[3] (click)`, or the parameter (`click`, `scripts`). */
export function stepLabel(step: NamedAction): string {
  return isAction(step) ? `${step.name} (${step.action.type})` : step.name;
}

async function runStep(page: Page, step: NamedAction, options: ActionOptions): Promise<string | null> {
  const { action } = step;
  const missing = (selector: string): string => {
    if (options.ignoreMissingSelectors) {
      return `${stepLabel(step)}: no element matches ${JSON.stringify(selector)}; skipped (ignore_missing_selectors)`;
    }
    // The shape of an element capture's selector that matches nothing: a 400 naming the parameter.
    throw isAction(step)
      ? invalidParam(`${stepLabel(step)}:`, `no element matches ${JSON.stringify(selector)}`)
      : invalidParam(step.name, 'matched no element');
  };
  switch (action.type) {
    case 'wait':
      await new Promise((resolve) => setTimeout(resolve, action.milliseconds));
      return null;
    case 'wait_for_selector':
      return (await waitForElement(page, action.selector, options.waitTimeoutMs))
        ? null
        : missing(action.selector);
    case 'scroll':
      await page.evaluate(
        (up: boolean, amount: number | null) =>
          window.scrollBy(0, (up ? -1 : 1) * (amount ?? window.innerHeight)),
        action.direction === 'up',
        action.amount,
      );
      return null;
    case 'press':
      return navigating(page, options, async () => {
        try {
          await page.keyboard.press(action.key as KeyInput);
        } catch (error) {
          if (error instanceof Error && error.message.startsWith('Unknown key')) {
            throw invalidParam(stepLabel(step), `has an unknown key ${JSON.stringify(action.key)}`);
          }
          throw error;
        }
        return null;
      });
    case 'evaluate':
      return navigating(page, options, async () => evaluate(page, step, action.script));
    default:
      return onElements(page, step, options, missing);
  }
}

/** The steps that act on an element: found by the browser's own querySelector (selectors.ts). */
async function onElements(
  page: Page,
  step: NamedAction,
  options: ActionOptions,
  missing: (selector: string) => string,
): Promise<string | null> {
  const { action } = step;
  if (!('selector' in action)) return null;
  const all = action.type === 'click' && action.all;
  const handles = await elements(page, action.selector, all ? MAX_CLICKS : 1);
  if (handles.length === 0) return missing(action.selector);
  try {
    return await navigating(page, options, async () => {
      for (const handle of handles) {
        switch (action.type) {
          case 'click':
            await handle.click();
            break;
          case 'hover':
            await handle.hover();
            break;
          case 'type':
            await handle.type(action.text);
            break;
          case 'scroll_into_view':
            await handle.evaluate((element) => element.scrollIntoView({ block: 'center' }));
            break;
        }
      }
      return null;
    });
  } catch (error) {
    // An element that is hidden, detached or covered cannot be clicked or typed into.
    if (error instanceof Error && UNACTIONABLE.some((text) => error.message.includes(text))) {
      throw invalidParam(
        `${stepLabel(step)}:`,
        `could not act on ${JSON.stringify(action.selector)} (${error.message})`,
      );
    }
    throw error;
  } finally {
    await Promise.all(handles.map((handle) => handle.dispose().catch(() => undefined)));
  }
}

async function elements(page: Page, selector: string, limit: number): Promise<ElementHandle<Element>[]> {
  const list = await page.evaluateHandle(
    (css: string, max: number) => [...document.querySelectorAll(css)].slice(0, max),
    selector,
    limit,
  );
  try {
    const properties = await list.getProperties();
    return [...properties.values()]
      .map((handle) => handle.asElement())
      .filter((handle): handle is ElementHandle<Element> => handle !== null);
  } finally {
    await list.dispose();
  }
}

const POLL_MS = 100;

async function waitForElement(page: Page, selector: string, timeoutMs: number): Promise<boolean> {
  try {
    await page.waitForFunction(
      (css: string) => document.querySelector(css) !== null,
      { polling: POLL_MS, timeout: timeoutMs },
      selector,
    );
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') return false;
    throw error;
  }
}

/**
 * A caller's script, run as the page's own code would be but outside its Content-Security-Policy
 * (DevTools' evaluation), its value awaited when it is a promise. A script that throws is a
 * warning for `scripts` and a failed step for `actions`.
 */
async function evaluate(page: Page, step: NamedAction, script: string): Promise<string | null> {
  try {
    await page.evaluate(script);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    if (step.scriptFailure === 'warn') return `${stepLabel(step)}: the script threw: ${message}`;
    throw invalidParam(`${stepLabel(step)}:`, `the script threw: ${message}`);
  }
}

/**
 * Runs a step that may make the main frame navigate (a link clicked, a form sent, a script that
 * sets location) and, when it did, waits for the new document to load before the next step: the
 * new document, like every request, goes through the egress proxy.
 */
async function navigating(
  page: Page,
  options: ActionOptions,
  run: () => Promise<string | null>,
): Promise<string | null> {
  let started = false;
  const onRequest = (request: HTTPRequest) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) started = true;
  };
  page.on('request', onRequest);
  // Listening before the step: a navigation that ends before the step returns is still seen.
  const loaded = page.waitForNavigation({ waitUntil: 'load', timeout: options.waitTimeoutMs });
  loaded.catch(() => undefined);
  try {
    const result = await run();
    // One round trip to the page: a navigation its handlers began has been announced by then.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0))).catch(() => undefined);
    if (started) {
      await loaded.catch((error: unknown) => {
        if (error instanceof Error && error.name === 'TimeoutError') {
          throw new WebcapError(
            'timeout',
            `the page a step opened did not load within ${options.waitTimeoutMs} ms`,
          );
        }
      });
    }
    return result;
  } finally {
    page.off('request', onRequest);
  }
}
