import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AdminDeps } from '../admin/deps.js';
import { Slug } from './admin-bodies.js';
import { errors } from './responses/errors.js';

/** The operations' deps for one request (its actor, for the audit log, is the admin API at the client's address). */
export type AdminOf = (request: FastifyRequest) => AdminDeps;

/** How every admin route appears in the OpenAPI document: its tag, and the bearer token it needs. */
export const ADMIN_DOC = { tags: ['admin'], security: [{ adminToken: [] }] };

// What each kind of route can answer besides its success: every route 401 (the token) and
// 500/503; a path parameter or query out of bounds 400; a body 400 and 413 (and any POST 413,
// as its body is read); a named account or key 404; a taken slug 409.
export const READ = errors(401, 500, 503);
export const READ_ONE = errors(400, 401, 404, 500, 503);
export const WRITE = errors(400, 401, 404, 413, 500, 503);

export const SlugParams = Type.Object({ slug: Slug });
export const KeyParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const UserParams = KeyParams;
