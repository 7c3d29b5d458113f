import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { generateOpenApiDocument } from './openapi-document';

/** `npm run openapi [-- PATH]`: writes the OpenAPI document (default openapi.json) without a database or a server. */
const target = resolve(process.argv[2] ?? 'openapi.json');
generateOpenApiDocument()
  .then((document) => {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
    process.stdout.write(`wrote ${target} (${Object.keys(document.paths).length} paths)\n`);
  })
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
