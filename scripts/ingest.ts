// npm run ingest -- file.json: pushes an article to a running Kiosk as the CMS does.
import fs from 'node:fs';
import { readCommandLine, runCommand, UsageError } from './cli';
import { pathUnder } from '../src/request-kinds';
import { articleIdPattern } from '../src/sections';

const usage = `Usage: npm run ingest -- <file.json> [--url http://localhost:3000] [--if-match ETAG]
       npm run ingest -- --unpublish <article id> --modified-at <time> [--url ...] [--if-match ETAG]

Sends the article in <file.json> to PUT /api/ingest/articles/<id> (created or updated, draft or
published), or takes one off the site with DELETE. The file is one JSON object: "id" (18
digits) and the article's fields (section, status, title, lead, author, image, publishedAt,
body, modifiedAt: the story's last-modified time in the CMS). A version older than the one
stored is refused (409) and changes nothing. The token is read from INGEST_TOKEN, never from
the command line.

  --url URL            the Kiosk to send to (default KIOSK_URL, else http://localhost:3000)
  --unpublish ID       take the article off the site (it stays as a draft; its preview links stop working)
  --modified-at TIME   with --unpublish: the story's last-modified time in the CMS (ISO 8601 with a zone)
  --if-match ETAG      only if the stored version is this one (the ETag an earlier answer printed)
  -h, --help           show this help`;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function send(
  url: string,
  method: 'PUT' | 'DELETE',
  token: string,
  ifMatch: string | undefined,
  body?: unknown,
): Promise<Answer & { etag: string | null }> {
  const response = await fetch(url, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    parsed = { error: { message: text.slice(0, 200) } };
  }
  return { status: response.status, body: parsed, etag: response.headers.get('etag') };
}

const command = { name: 'ingest', usage };

async function main(): Promise<number> {
  const parsed = readCommandLine({
    ...command,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      unpublish: { type: 'string' },
      'modified-at': { type: 'string' },
      'if-match': { type: 'string' },
    },
  });
  if (!parsed.ok) return parsed.exitCode;
  const { values, positionals } = parsed;
  const token = process.env.INGEST_TOKEN ?? '';
  if (!token) {
    console.error('ingest: set INGEST_TOKEN to the token the server runs with');
    return 2;
  }
  const base = (values.url ?? process.env.KIOSK_URL ?? 'http://localhost:3000').replace(/\/+$/, '');

  let id: string;
  let method: 'PUT' | 'DELETE';
  let body: Record<string, unknown> | undefined;
  let query = '';
  if (values.unpublish !== undefined) {
    if (positionals.length > 0) {
      throw new UsageError(`--unpublish takes no file`);
    }
    if (values['modified-at'] === undefined) {
      throw new UsageError(`--unpublish needs --modified-at, the story's last-modified time in the CMS`);
    }
    id = values.unpublish;
    method = 'DELETE';
    query = `?${new URLSearchParams({ modifiedAt: values['modified-at'] }).toString()}`;
  } else {
    if (values['modified-at'] !== undefined) {
      throw new UsageError(`an article's modifiedAt is in its file`);
    }
    if (positionals.length !== 1) {
      throw new UsageError(`give one JSON file`);
    }
    const file = positionals[0]!;
    let article: unknown;
    try {
      article = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (error) {
      console.error(`ingest: cannot read ${file}: ${(error as Error).message}`);
      return 1;
    }
    if (typeof article !== 'object' || article === null || Array.isArray(article)) {
      console.error(`ingest: ${file} must hold one JSON object`);
      return 1;
    }
    const { id: fileId, ...fields } = article as Record<string, unknown>;
    id = String(fileId ?? '');
    method = 'PUT';
    body = fields;
  }
  if (!articleIdPattern.test(id)) {
    console.error(`ingest: the article id must be 18 digits, got "${id}"`);
    return 2;
  }

  let answer: Answer & { etag: string | null };
  try {
    answer = await send(`${base}${pathUnder('ingest', `articles/${id}`)}${query}`, method, token, values['if-match'], body);
  } catch (error) {
    console.error(`ingest: could not reach ${base}: ${(error as Error).message}`);
    return 1;
  }
  if (answer.status >= 400) {
    const error = answer.body.error as { code?: string; message?: string } | undefined;
    console.error(`ingest: ${method} ${id} refused: ${answer.status} ${error?.code ?? ''} ${error?.message ?? ''}`.trimEnd());
    if (answer.etag !== null) console.error(`ingest: the stored version's ETag is ${answer.etag}`);
    return 1;
  }
  const b = answer.body;
  console.log(
    `ingest: ${id} ${String(b.outcome)} (${String(b.status)}), updated ${String(b.updatedAt)}, ETag ${answer.etag ?? 'none'}${b.path ? `; public address ${base}${String(b.path)}` : ''}`,
  );
  return 0;
}

await runCommand(command, main);
process.exit(process.exitCode ?? 0);
