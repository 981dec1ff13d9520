/**
 * The JSON Schema `/v1/extract` takes (`schema`), and the type of the data it describes, read from
 * a schema written in the call (TypeScript infers it as given: the SDK's `extract` and `content`
 * take the schema as a `const` type parameter).
 */

export type JsonTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * The keywords the service accepts; any other is a 400 naming it. A type alias, not an interface,
 * so that it is assignable to the document's `{[name: string]: unknown}`.
 */
export type JsonSchema = {
  readonly type?: JsonTypeName | readonly JsonTypeName[];
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly enum?: readonly (string | number | boolean | null)[];
  readonly description?: string;
  readonly title?: string;
  readonly format?:
    | 'date'
    | 'date-time'
    | 'time'
    | 'email'
    | 'uri'
    | 'uri-reference'
    | 'hostname'
    | 'ipv4'
    | 'ipv6'
    | 'uuid';
  readonly additionalProperties?: boolean;
};

// Past this depth a type is `unknown` (the service allows 16 levels; TypeScript's own limit on
// recursive types comes sooner on wide schemas).
type Deeper<D extends readonly unknown[]> = readonly [...D, unknown];

type Scalar<N> = N extends 'string'
  ? string
  : N extends 'number' | 'integer'
    ? number
    : N extends 'boolean'
      ? boolean
      : N extends 'null'
        ? null
        : never;

type Required<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type ObjectOf<S, D extends readonly unknown[]> = S extends { readonly properties: infer P }
  ? {
      // A required property the page does not state is null from the built-in extractor (a model's
      // answer validates against the schema as given): null stays in the type.
      -readonly [K in keyof P as K extends Required<S> ? K : never]: FromSchema<P[K], Deeper<D>> | null;
    } & {
      -readonly [K in keyof P as K extends Required<S> ? never : K]?: FromSchema<P[K], Deeper<D>>;
    }
  : { [name: string]: unknown };

type OfType<S, N, D extends readonly unknown[]> = N extends 'object'
  ? ObjectOf<S, D>
  : N extends 'array'
    ? S extends { readonly items: infer I }
      ? FromSchema<I, Deeper<D>>[]
      : unknown[]
    : Scalar<N>;

/**
 * The value a schema describes: objects with their properties (required ones may be null when the
 * page does not state them, optional ones absent), arrays of their items, enums as their values.
 */
export type FromSchema<S, D extends readonly unknown[] = []> = D['length'] extends 10
  ? unknown
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: infer T }
      ? T extends readonly (infer N)[]
        ? OfType<S, N, D>
        : OfType<S, T, D>
      : unknown;
