/** POST /api/method/upload_file (Frappe's multipart fields) and the audited private download. */
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { actorOf } from '../http/plugins/auth.js';
import { methodRoute } from '../http/method.js';
import { InputError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { downloadFile, uploadFile } from './files.service.js';

interface AnnotatedPart {
  filename?: string;
  headers?: Record<string, string>;
  payload: Buffer | string;
}

function field(payload: Record<string, unknown>, name: string): string | undefined {
  const v = payload[name];
  if (v === undefined || v === null) return undefined;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  if (typeof v === 'object' && 'payload' in (v as object)) return String((v as AnnotatedPart).payload);
  return String(Array.isArray(v) ? v[0] : v);
}

async function upload(request: Request) {
  const payload = request.payload as Record<string, unknown> | null;
  if (!payload || typeof payload !== 'object') throw new InputError('Send the file as multipart/form-data in the field "file"');
  const part = payload.file as AnnotatedPart | Buffer | string | undefined;
  if (!part || typeof part !== 'object' || Buffer.isBuffer(part) || !part.filename) throw new InputError('Send the file as multipart/form-data in the field "file"');
  const data = Buffer.isBuffer(part.payload) ? part.payload : Buffer.from(part.payload);
  const doc = await uploadFile(actorOf(request), {
    file_name: field(payload, 'file_name') || part.filename,
    data,
    folder: field(payload, 'folder'),
    fieldname: field(payload, 'fieldname'),
  });
  return { message: doc };
}

async function download(request: Request, h: ResponseToolkit, ref: string) {
  const { file, content } = await downloadFile(actorOf(request), ref);
  return h
    .response(content)
    .type(file.content_type)
    .header('content-disposition', `attachment; filename="${file.file_name.replace(/"/g, '')}"`)
    .header('x-content-type-options', 'nosniff');
}

export function filesRoutes(): ServerRoute[] {
  const limit = runtime().config.http.uploadLimitBytes;
  return [
    {
      method: 'POST',
      path: '/api/method/upload_file',
      options: {
        description: 'Upload a private file (PDF, PNG or JPEG by content); multipart fields as Frappe: file, is_private, folder, doctype, docname, fieldname',
        tags: ['api', 'files'],
        app: { access: 'authenticated' },
        // a little room for the multipart envelope; the file itself is checked against the limit (413)
        payload: { output: 'data', parse: true, multipart: { output: 'annotated' }, maxBytes: limit + 64 * 1024, allow: ['multipart/form-data'] },
        handler: upload,
      },
    },
    {
      method: 'GET',
      path: '/private/files/{name}/{file_name?}',
      options: {
        description: 'Download a private file (audited)',
        tags: ['api', 'files'],
        app: { access: 'authenticated' },
        handler: (request, h) => download(request, h, String(request.params.name)),
      },
    },
    methodRoute({
      name: 'svc.files.download',
      methods: ['GET'],
      access: 'authenticated',
      tags: ['files'],
      description: 'Download a private file by name or file_url (audited)',
      args: Joi.object({ file: Joi.string().max(500).required() }),
      handler: ({ request, h, args }) => download(request, h, args.file),
    }),
  ];
}
