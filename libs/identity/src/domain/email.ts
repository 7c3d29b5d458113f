import { invalidParameter } from '@app/shared-kernel';

const EMAIL = /^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$/;

export function normalizeEmail(value: unknown, param = 'email'): string {
  const email = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (!EMAIL.test(email) || email.length > 254)
    throw invalidParameter(param, 'INVALID_FORMAT', `${param} must be an email address.`);
  return email;
}
