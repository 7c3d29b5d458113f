import { DomainError } from '@app/shared-kernel';
import { FastifyRequest } from 'fastify';
import { validationFailed } from './validation';

/**
 * PostgreSQL `text` and `jsonb` cannot hold U+0000: a NUL anywhere in what a route stores was a
 * 500 from the database. It is refused once, here, for every route: in the JSON body (values and
 * keys, by the body parser), in the query string and in the path (by a hook before any guard).
 */
const NUL = '\u0000';

/** Where the first NUL is, as the contract names a field (`lines[0].description`), or undefined. */
export function nulCharacterAt(value: unknown, root = ''): string | undefined {
  const pending: Array<[unknown, string]> = [[value, root]];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const [current, path] = entry;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return path;
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => pending.push([item, `${path}[${index}]`]));
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        const named = path ? `${path}.${printable(key)}` : printable(key);
        if (key.includes(NUL)) return named;
        pending.push([child, named]);
      }
    }
  }
  return undefined;
}

/** A key as text a client can read back: the NUL spelled as JSON spells it. */
function printable(key: string): string {
  return key.replaceAll(NUL, '\\u0000');
}

function nulCharacterRefused(param: string): DomainError {
  return validationFailed([
    {
      param: param || 'body',
      code: 'INVALID_CHARACTER',
      message: `${param || 'The body'} must not contain the NUL character (U+0000).`,
    },
  ]);
}

/** The refusal of a parsed JSON body holding a NUL. JSON holds one only escaped: a text without `u0000` is not walked. */
export function nulInBody(text: string, value: unknown): DomainError | undefined {
  if (!text.includes('u0000')) return undefined;
  const at = nulCharacterAt(value);
  return at === undefined ? undefined : nulCharacterRefused(at);
}

/** preValidation hook: path parameters and query values (Fastify has decoded `%00` by now). */
export async function refuseNulInUrl(request: FastifyRequest): Promise<void> {
  if (!request.url.includes('%00')) return;
  const at = nulCharacterAt(request.params) ?? nulCharacterAt(request.query);
  if (at !== undefined) throw nulCharacterRefused(at);
}
