import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { readAudit } from '../../../admin/audit.js';
import { AuditEntryJsonSchema, auditEntryJson } from '../../../admin/json.js';
import { Nullable } from '../../../nullable.js';
import { Slug } from '../../admin-bodies.js';
import { ADMIN_DOC, type AdminOf, READ_ONE } from '../../admin-route-parts.js';

const AuditQuery = Type.Object(
  {
    account: Type.Optional(Slug),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    before: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** /audit: the audit log (docs/console.md, "Audit log"), every admin operation from every door. */
export function adminAuditRoutes(admin: AdminOf): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/audit',
      {
        schema: {
          ...ADMIN_DOC,
          querystring: AuditQuery,
          response: {
            200: Type.Object({ entries: Type.Array(AuditEntryJsonSchema), next: Nullable(Type.String()) }),
            ...READ_ONE,
          },
        },
      },
      async (request) => {
        const { account, action, limit, before } = request.query;
        const page = await readAudit(
          admin(request),
          { accountSlug: account, action },
          { limit: limit ?? 50, before },
        );
        return { entries: page.items.map(auditEntryJson), next: page.next };
      },
    );
  };
}
