import { type Static, type TSchema, Type } from 'typebox';
import { Value } from 'typebox/value';
import type { NamedAction, PageAction, PageActions } from '../browser/page-actions.js';
import { invalidParam } from '../errors.js';
import { Flag, flag } from './common-fields.js';
import { jsonText, parseJsonText } from './json-text.js';

const Selector = Type.String({ minLength: 1, maxLength: 1000 });
const Script = Type.String({ minLength: 1, maxLength: 20_000 });

/** Each step's own schema, by its type: a step is checked against the one its `type` names. */
const STEP_SCHEMAS = {
  wait: Type.Object(
    { type: Type.Literal('wait'), milliseconds: Type.Integer({ minimum: 0, maximum: 10_000 }) },
    { additionalProperties: false },
  ),
  wait_for_selector: Type.Object(
    { type: Type.Literal('wait_for_selector'), selector: Selector },
    { additionalProperties: false },
  ),
  click: Type.Object(
    { type: Type.Literal('click'), selector: Selector, all: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  hover: Type.Object({ type: Type.Literal('hover'), selector: Selector }, { additionalProperties: false }),
  type: Type.Object(
    { type: Type.Literal('type'), selector: Selector, text: Type.String({ maxLength: 5000 }) },
    { additionalProperties: false },
  ),
  press: Type.Object(
    { type: Type.Literal('press'), key: Type.String({ minLength: 1, maxLength: 32 }) },
    { additionalProperties: false },
  ),
  scroll: Type.Object(
    {
      type: Type.Literal('scroll'),
      direction: Type.Optional(Type.Enum(['down', 'up'])),
      amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'CSS pixels' })),
      selector: Type.Optional(Selector),
    },
    { additionalProperties: false },
  ),
  evaluate: Type.Object({ type: Type.Literal('evaluate'), script: Script }, { additionalProperties: false }),
  screenshot: Type.Object(
    { type: Type.Literal('screenshot'), full_page: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
} satisfies Record<string, TSchema>;

type StepType = keyof typeof STEP_SCHEMAS;

/** The most steps one call may take, the most its `wait` steps may add up to, and the most screenshots it may take. */
const MAX_STEPS = 50;
const MAX_TOTAL_WAIT_MS = 30_000;
export const MAX_SCREENSHOT_STEPS = 10;

const Steps = Type.Array(Type.Union(Object.values(STEP_SCHEMAS)), { maxItems: MAX_STEPS });

/** The page-preparing fields capture, content and analyze take (docs/capture.md, "Acting on the page"). */
export const actionFields = {
  actions: Type.Optional(
    jsonText(
      Steps,
      100_000,
      `at most ${MAX_STEPS} steps run in order after the page loads, at most ${MAX_SCREENSHOT_STEPS} of them screenshots (docs/capture.md)`,
    ),
  ),
  scripts: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 20_000,
      description: 'JavaScript run in the page after it loads',
    }),
  ),
  click: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector clicked' })),
  hover: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector hovered' })),
  scroll_into_view: Type.Optional(
    Type.String({ minLength: 1, maxLength: 1000, description: 'CSS selector scrolled into view' }),
  ),
  ignore_missing_selectors: Type.Optional(Flag),
};

export interface ActionInput {
  readonly actions?: Static<typeof Steps> | string;
  readonly scripts?: string;
  readonly click?: string;
  readonly hover?: string;
  readonly scroll_into_view?: string;
  readonly ignore_missing_selectors?: boolean | '1' | '0';
}

/** The array of steps, each checked against the schema of its own type so that errors name the step. */
const StepList = Type.Array(Type.Object({ type: Type.String({ maxLength: 50 }) }), { maxItems: MAX_STEPS });

function step(index: number, raw: Static<typeof StepList>[number]): PageAction {
  const name = `actions[${index}]`;
  // Own keys only: a type such as "constructor" must not find what every object inherits.
  const schema = Object.hasOwn(STEP_SCHEMAS, raw.type)
    ? (STEP_SCHEMAS as Record<string, TSchema>)[raw.type]
    : undefined;
  if (schema === undefined) {
    throw invalidParam(
      `${name}.type`,
      `is ${JSON.stringify(raw.type)}; allowed: ${Object.keys(STEP_SCHEMAS).join(', ')}`,
    );
  }
  const error = Value.Errors(schema, raw)[0];
  if (error !== undefined) {
    const where = error.instancePath === '' ? '' : error.instancePath.slice(1).replaceAll('/', '.');
    throw invalidParam(`${name} (${raw.type})${where === '' ? '' : ` ${where}`}`, error.message);
  }
  const checked = raw as Static<(typeof STEP_SCHEMAS)[StepType]>;
  switch (checked.type) {
    case 'click':
      return { type: 'click', selector: checked.selector, all: checked.all ?? false };
    case 'scroll':
      if (checked.selector !== undefined) {
        if (checked.direction !== undefined || checked.amount !== undefined) {
          throw invalidParam(`${name} (scroll)`, 'takes a selector or a direction and amount, not both');
        }
        return { type: 'scroll_into_view', selector: checked.selector };
      }
      return { type: 'scroll', direction: checked.direction ?? 'down', amount: checked.amount ?? null };
    case 'screenshot':
      return { type: 'screenshot', fullPage: checked.full_page ?? false };
    default:
      return checked;
  }
}

/**
 * The steps to run on the loaded page, in order: `scripts`, then `click`, `hover` and
 * `scroll_into_view`, then `actions`; null when there are none. Malformed steps, an unknown type,
 * waits adding up to more than the bound and more screenshots than the bound are 400s naming the step or `actions`.
 */
export function actionsOf(input: ActionInput): PageActions | null {
  const steps: NamedAction[] = [];
  if (input.scripts !== undefined) {
    steps.push({
      name: 'scripts',
      action: { type: 'evaluate', script: input.scripts },
      scriptFailure: 'warn',
    });
  }
  if (input.click !== undefined) {
    steps.push({
      name: 'click',
      action: { type: 'click', selector: input.click, all: false },
      scriptFailure: 'fail',
    });
  }
  if (input.hover !== undefined) {
    steps.push({ name: 'hover', action: { type: 'hover', selector: input.hover }, scriptFailure: 'fail' });
  }
  if (input.scroll_into_view !== undefined) {
    steps.push({
      name: 'scroll_into_view',
      action: { type: 'scroll_into_view', selector: input.scroll_into_view },
      scriptFailure: 'fail',
    });
  }
  const listed = parseJsonText('actions', input.actions, StepList) ?? [];
  let waited = 0;
  let shots = 0;
  listed.forEach((raw, index) => {
    const action = step(index, raw);
    if (action.type === 'wait') {
      waited += action.milliseconds;
      if (waited > MAX_TOTAL_WAIT_MS) {
        throw invalidParam('actions', `waits more than ${MAX_TOTAL_WAIT_MS} ms in all`);
      }
    }
    if (action.type === 'screenshot') {
      shots += 1;
      if (shots > MAX_SCREENSHOT_STEPS) {
        throw invalidParam('actions', `takes more than ${MAX_SCREENSHOT_STEPS} screenshots`);
      }
    }
    steps.push({ name: `actions[${index}]`, action, scriptFailure: 'fail' });
  });
  if (steps.length === 0) return null;
  return { steps, ignoreMissingSelectors: flag(input.ignore_missing_selectors) };
}

/**
 * Refuses screenshot steps where the answer cannot carry them (`why`): a 400 naming the first,
 * since the caller would pay for images they never receive.
 */
export function refuseScreenshots(actions: PageActions | null | undefined, why: string): void {
  const first = actions?.steps.find(({ action }) => action.type === 'screenshot');
  if (first !== undefined) throw invalidParam(`${first.name} (screenshot):`, why);
}
