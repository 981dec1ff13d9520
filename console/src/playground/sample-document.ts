import type { OpenApiDocument } from './openapi-form.ts';

// Used by the tests only (the app reads the served document).
const FLAG = {
  anyOf: [
    { type: 'boolean' },
    {
      anyOf: [
        { type: 'string', enum: ['1'] },
        { type: 'string', enum: ['0'] },
      ],
    },
  ],
};

/** A slice of the served document, in its shapes (TypeBox's flags, enums, lists, any). */
export const DOCUMENT: OpenApiDocument = {
  paths: {
    '/v1/capture': {
      get: {
        summary: 'Screenshot or PDF of a page',
        parameters: [
          {
            name: 'url',
            in: 'query',
            required: true,
            description: 'URL of the page',
            schema: { type: 'string', minLength: 1 },
          },
          { name: 'full_page', in: 'query', schema: FLAG },
          { name: 'format', in: 'query', schema: { enum: ['png', 'jpeg', 'pdf'], default: 'png' } },
          { name: 'delay', in: 'query', schema: { type: 'number', minimum: 0, maximum: 10 } },
          { name: 'viewport_width', in: 'query', schema: { type: 'integer', minimum: 100, maximum: 3840 } },
          { name: 'wait_until', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'is_async', in: 'query', schema: FLAG },
          { name: 'response_type', in: 'query', schema: { enum: ['image', 'json', 'base64'] } },
          { name: 'x_api_key', in: 'query', schema: { type: 'string' } },
        ],
      },
    },
    '/v1/analyze': {
      get: {
        summary: 'An analysis of a page',
        parameters: [{ name: 'url', in: 'query', required: true, schema: { type: 'string' } }],
      },
      post: {
        summary: 'An analysis of a page',
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['url'],
                properties: {
                  url: { type: 'string' },
                  custom_response: { description: 'fields' },
                  x_api_key: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
    '/v1/files/{id}': { get: { parameters: [{ name: 'id', in: 'path', required: true }] } },
    '/jobs/{job_id}': { get: {} },
    '/capture': { get: {} },
  },
};
