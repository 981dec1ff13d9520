import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/api-client.ts';
import type { ConsoleKey, Page } from '../api/types.ts';
import { formatBytes, formatDuration } from '../app/format.ts';
import { Link } from '../app/router.tsx';
import { isOwner, useSession } from '../app/session-context.ts';
import { ViewHeader } from '../app/shell.tsx';
import { Badge, keyState, statusTone } from '../components/badge.tsx';
import { CopyButton } from '../components/copy-button.tsx';
import { FormError, SelectInput } from '../components/form-field.tsx';
import { JsonView } from '../components/json-view.tsx';
import { Empty, Loaded } from '../components/load-state.tsx';
import { ScrollRegion } from '../components/scroll-region.tsx';
import { useAction } from '../components/use-action.ts';
import { useLoad } from '../components/use-load.ts';
import { callSnippets } from '../playground/call-snippets.ts';
import {
  buildCall,
  type FormValues,
  type OpenApiDocument,
  type PlaygroundOperation,
  playgroundOperations,
} from '../playground/openapi-form.ts';
import { OperationFields } from '../playground/operation-form.tsx';
import { type CallAnswer, runCall } from '../playground/run-call.ts';

/** The operation shown first: what most people come to try. */
const DEFAULT_OPERATION = 'GET /v1/capture';

/** Free endpoints: the rest are billed. */
const FREE = new Set(['/v1/usage', '/v1/stats']);

async function loadDocument(): Promise<OpenApiDocument> {
  const response = await fetch('/openapi.json', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`The API’s description could not be read (${response.status}).`);
  return (await response.json()) as OpenApiDocument;
}

/** Playground: any v1 operation, its form made from /openapi.json, run with one of the account's keys. */
export function PlaygroundView() {
  const document = useLoad(async () => playgroundOperations(await loadDocument()), []);
  const keys = useLoad(() => api<Page<ConsoleKey>>('GET', '/keys'), []);
  return (
    <section>
      <ViewHeader
        title="Playground"
        lead="Try any endpoint with one of the account’s keys. The call is real: billed like any other, in the usage and the request log."
      />
      <Loaded load={document}>
        {(operations) => (
          <Loaded load={keys}>
            {(page) => (
              <Playground
                operations={operations}
                keys={page.items.filter((k) => keyState(k).label === 'active')}
              />
            )}
          </Loaded>
        )}
      </Loaded>
    </section>
  );
}

function Playground({
  operations,
  keys,
}: {
  readonly operations: readonly PlaygroundOperation[];
  readonly keys: readonly ConsoleKey[];
}) {
  const session = useSession();
  const [operationId, setOperationId] = useState(
    (operations.find((o) => o.id === DEFAULT_OPERATION) ?? operations[0])?.id ?? '',
  );
  const [keyId, setKeyId] = useState(keys[0]?.id ?? '');
  const [valuesById, setValuesById] = useState<Record<string, FormValues>>({});
  const [invalid, setInvalid] = useState<string | null>(null);
  const [answer, setAnswer] = useState<CallAnswer | null>(null);
  const action = useAction();
  const operation = operations.find((o) => o.id === operationId) ?? operations[0];
  const values = valuesById[operationId] ?? {};

  // An image, video or PDF shown from a blob: URL holds its bytes until the URL is revoked.
  useEffect(() => {
    if (answer === null || !('objectUrl' in answer)) return;
    return () => URL.revokeObjectURL(answer.objectUrl);
  }, [answer]);

  if (operation === undefined) return <Empty>The API’s description lists no operation to try.</Empty>;
  if (keys.length === 0) {
    return (
      <Empty>
        <p>
          The account has no active key to run calls with.{' '}
          {isOwner(session) ? (
            <Link to="/keys">Create a key first.</Link>
          ) : (
            'Ask an owner of the account to create one.'
          )}
        </p>
      </Empty>
    );
  }

  const built = buildCall(operation, values);
  const snippets = 'call' in built ? callSnippets(built.call, window.location.origin) : null;
  const billed = !FREE.has(operation.path);

  const run = async (event: Event) => {
    event.preventDefault();
    if (!('call' in built)) {
      setInvalid(built.error.field);
      await action.run(() => Promise.reject(new Error(built.error.message)));
      return;
    }
    setInvalid(null);
    const result = await action.run(() => runCall(built.call, keyId));
    if (result !== undefined) setAnswer(result);
  };

  return (
    <div class="playground">
      <form class="card stack" onSubmit={run} aria-label="The call">
        <div class="grid-2">
          <SelectInput
            label="Endpoint"
            value={operation.id}
            onValue={(id) => {
              setOperationId(id);
              setInvalid(null);
              action.clearError();
            }}
            options={operations.map(
              (o) => [o.id, o.summary === o.path ? o.id : `${o.id} — ${o.summary}`] as const,
            )}
          />
          <SelectInput
            label="Key"
            hint="The call is made as this key; the key itself never reaches this page."
            value={keyId}
            onValue={setKeyId}
            options={keys.map((k) => [k.id, `${k.alias || 'no alias'} (${k.prefix}…)`] as const)}
          />
        </div>
        <OperationFields
          fields={operation.fields}
          values={values}
          onValues={(next) => setValuesById({ ...valuesById, [operation.id]: next })}
          invalid={invalid}
        />
        <p class={billed ? 'notice billed' : 'notice'}>
          {billed
            ? 'Billed: a successful call uses one unit of the account’s balance, exactly as the same call made with the key.'
            : 'Free: this endpoint uses no unit.'}
        </p>
        <FormError error={action.error} />
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={action.busy}>
            {action.busy ? 'Running…' : `Run ${operation.method} ${operation.path}`}
          </button>
        </div>
      </form>
      {answer !== null && <Answer answer={answer} />}
      {snippets !== null && (
        <div class="card snippets">
          <h2 class="card-title">The same call elsewhere</h2>
          <p class="muted">
            With your key in <code>WEBCAP_API_KEY</code>.
          </p>
          <Snippet label="curl" text={snippets.curl} />
          {snippets.sdk !== null && <Snippet label="TypeScript SDK (@webcap/sdk)" text={snippets.sdk} />}
          {snippets.cli !== null && <Snippet label="CLI (npx webcap)" text={snippets.cli} />}
        </div>
      )}
    </div>
  );
}

function Snippet({ label, text }: { readonly label: string; readonly text: string }) {
  return (
    <div class="snippet">
      <div class="snippet-head">
        <span class="strong">{label}</span>
        <CopyButton text={text} label={`Copy ${label.split(' ')[0]}`} />
      </div>
      <ScrollRegion label={label}>{text}</ScrollRegion>
    </div>
  );
}

function Answer({ answer }: { readonly answer: CallAnswer }) {
  const job =
    answer.kind === 'json' && answer.status === 202 && typeof answer.json === 'object' && answer.json !== null
      ? (answer.json as { job_id?: unknown }).job_id
      : undefined;
  return (
    <div class="card answer" aria-live="polite">
      <div class="answer-head">
        <h2 class="card-title">Answer</h2>
        <Badge tone={statusTone(answer.status)}>{answer.status}</Badge>
        <span class="muted">
          {formatDuration(answer.durationMs)}
          {answer.contentType !== '' && ` · ${answer.contentType.split(';')[0]}`}
          {answer.bytes > 0 && ` · ${formatBytes(answer.bytes)}`}
        </span>
      </div>
      {answer.kind === 'error' && (
        <p class="form-error" role="alert">
          {answer.message}
        </p>
      )}
      {answer.kind === 'image' && <img class="result-image" src={answer.objectUrl} alt="The captured page" />}
      {answer.kind === 'video' && (
        <video class="result-image" src={answer.objectUrl} controls loop muted>
          <a href={answer.objectUrl}>The recorded page</a>
        </video>
      )}
      {answer.kind === 'pdf' && (
        <>
          <iframe class="result-pdf" src={answer.objectUrl} title="The captured PDF" />
          <a href={answer.objectUrl} download="capture.pdf">
            Download the PDF
          </a>
        </>
      )}
      {answer.kind === 'json' && <JsonView value={answer.json} label="The JSON answer" />}
      {answer.kind === 'text' && (
        <ScrollRegion class="text-answer" label="The answer as text">
          {answer.text}
        </ScrollRegion>
      )}
      <p class="muted">
        {typeof job === 'string' ? (
          <>
            Queued as a job: <Link to={`/jobs/${encodeURIComponent(job)}`}>follow it in Jobs</Link>.
          </>
        ) : (
          <>
            The call is in the <Link to="/usage">request log</Link>.
          </>
        )}
      </p>
    </div>
  );
}
