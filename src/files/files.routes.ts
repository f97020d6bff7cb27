/** POST /api/method/upload_file (Frappe's multipart fields) and the audited private download. */
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import contentDisposition from 'content-disposition';
import Joi from 'joi';
import { actorOf } from '../http/plugins/auth.js';
import { messageOf, methodRoute } from '../http/method.js';
import { InputError } from '../shared/errors.js';
import { assertCleanText } from '../shared/text.js';
import { runtime } from '../shared/runtime.js';
import { downloadFile, uploadFile } from './files.service.js';

interface AnnotatedPart {
  filename?: string;
  headers?: Record<string, string>;
  payload: Buffer | string;
}

/** A text field of the form; a part sent as bytes becomes text here, so the text rule is applied here too. */
function field(payload: Record<string, unknown>, name: string): string | undefined {
  const v = payload[name];
  if (v === undefined || v === null) return undefined;
  let text: string;
  if (Buffer.isBuffer(v)) text = v.toString('utf8');
  else if (typeof v === 'object' && 'payload' in v) text = String((v as AnnotatedPart).payload);
  else text = String(Array.isArray(v) ? v[0] : v);
  assertCleanText(text, name);
  return text;
}

async function upload(request: Request) {
  const payload = request.payload as Record<string, unknown> | null;
  if (!payload || typeof payload !== 'object') throw new InputError('Send the file as multipart/form-data in the field "file"');
  const part = payload.file as AnnotatedPart | Buffer | string | undefined;
  if (!part || typeof part !== 'object' || Buffer.isBuffer(part) || !part.filename)
    throw new InputError('Send the file as multipart/form-data in the field "file"');
  const data = Buffer.isBuffer(part.payload) ? part.payload : Buffer.from(part.payload);
  const doc = await uploadFile(actorOf(request), {
    file_name: field(payload, 'file_name') || part.filename,
    data,
    folder: field(payload, 'folder'),
    fieldname: field(payload, 'fieldname'),
  });
  return { message: doc };
}

/** The plain-ASCII `filename` for clients that ignore `filename*`: accents dropped, anything else non-ASCII as "_". */
function asciiFallback(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]/g, '_');
}

/** `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266 with RFC 8187 for the exact name). */
export function attachmentHeader(fileName: string): string {
  return contentDisposition(fileName, { type: 'attachment', fallback: asciiFallback(fileName) });
}

async function download(request: Request, h: ResponseToolkit, ref: string) {
  const { file, content } = await downloadFile(actorOf(request), ref);
  return h
    .response(content)
    .type(file.content_type)
    .header('content-disposition', attachmentHeader(file.file_name))
    .header('x-content-type-options', 'nosniff');
}

/** upload_file's answer: the File document (files.service.ts fileDoc), as Frappe answers it. */
const uploadResult = messageOf(
  Joi.object({
    name: Joi.string().description('File id'),
    file_name: Joi.string(),
    file_url: Joi.string().description('Where to download it (private: with credentials)'),
    is_private: Joi.number().integer().valid(0, 1),
    file_size: Joi.number().integer().description('Bytes'),
    content_hash: Joi.string(),
    folder: Joi.string(),
    attached_to_doctype: Joi.string().allow(null),
    attached_to_name: Joi.string().allow(null),
    attached_to_field: Joi.string().allow(null),
    is_folder: Joi.number().integer().valid(0),
    doctype: Joi.string().valid('File'),
    owner: Joi.string(),
    creation: Joi.string().description('Server-local time, as Frappe shows it'),
    modified: Joi.string(),
    docstatus: Joi.number().integer().valid(0),
  }).label('File'),
  'UploadFileResult',
);

/** What a download answers with (the types an upload accepts) */
const FILE_TYPES = ['application/pdf', 'image/png', 'image/jpeg'];

export function filesRoutes(): ServerRoute[] {
  const limit = runtime().config.http.uploadLimitBytes;
  return [
    {
      method: 'POST',
      path: '/api/method/upload_file',
      options: {
        description: 'Upload a private file (PDF, PNG or JPEG by content); multipart fields as Frappe: file, is_private, folder, doctype, docname, fieldname',
        tags: ['api', 'files'],
        app: { access: 'authenticated', docs: { result: uploadResult, errors: [413, 415, 429, 503, 507] } },
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
        app: { access: 'authenticated', docs: { produces: FILE_TYPES, errors: [404] } },
        handler: (request, h) => download(request, h, String(request.params.name)),
      },
    },
    methodRoute({
      name: 'svc.files.download',
      methods: ['GET'],
      access: 'authenticated',
      tags: ['files'],
      description: 'Download a private file by name or file_url (audited)',
      docs: { produces: FILE_TYPES, errors: [404] },
      args: Joi.object<{ file: string }>({ file: Joi.string().max(500).required() }),
      handler: ({ request, h, args }) => download(request, h, args.file),
    }),
  ];
}
