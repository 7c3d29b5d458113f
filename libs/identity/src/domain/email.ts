import { invalidParameter } from '@app/shared-kernel';

/** local@domain; the domain is checked for an inner dot apart (one pattern for both backtracked, quadratic in its length). */
const EMAIL = /^[^@\s]{1,64}@([^@\s]+)$/;

function isEmail(email: string): boolean {
  const domain = EMAIL.exec(email)?.[1];
  return domain !== undefined && domain.slice(1, -1).includes('.');
}

export function normalizeEmail(value: unknown, param = 'email'): string {
  const email = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!isEmail(email) || email.length > 254)
    throw invalidParameter(param, 'INVALID_FORMAT', `${param} must be an email address.`);
  return email;
}
