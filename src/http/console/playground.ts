import type { FastifyRequest } from 'fastify';
import type { ConsoleSessions } from '../../admin/sessions.js';
import { callerOfKeyId } from '../../calls/caller.js';
import type { Caller } from '../../calls/metering.js';
import { WebcapError } from '../../errors.js';
import type { AppDeps } from '../deps.js';
import { checkCsrf, checkStateChange } from './access.js';
import { sessionTokenOf } from './session-cookie.js';

/**
 * The playground's calls (docs/console.md, "The playground"): an API call made in the console
 * with the session cookie, `x-webcap-console-key: <key id>` and the session's CSRF token is the
 * call of that key, when it belongs to the session's account; it is then billed, capped and
 * logged as any call with the key. Every such call counts as a state change (it is billed), so
 * the CSRF token and the Origin check apply to GET as well. An operator's session names no key.
 */
export function playgroundCaller(deps: AppDeps, sessions: ConsoleSessions) {
  return async (request: FastifyRequest, keyId: string): Promise<Caller> => {
    checkStateChange(deps, request);
    const token = sessionTokenOf(deps, request);
    const session = await sessions.find(token);
    if (session === undefined || token === undefined) throw new WebcapError('unauthorized', 'sign in');
    checkCsrf(sessions, request, token);
    const account = session.person.account;
    if (account === null) throw new WebcapError('invalid_key');
    return callerOfKeyId(deps.keys, keyId, account.id, deps.clock());
  };
}
