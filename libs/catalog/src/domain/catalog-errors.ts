import { DomainError, DomainErrorOptions } from '@app/shared-kernel';

export type CatalogResource = 'cost' | 'product' | 'version' | 'change' | 'cascade_run';

const NOT_FOUND_CODES: Record<CatalogResource, string> = {
  cost: 'COST_NOT_FOUND',
  product: 'PRODUCT_NOT_FOUND',
  version: 'VERSION_NOT_FOUND',
  change: 'CHANGE_NOT_FOUND',
  cascade_run: 'CASCADE_RUN_NOT_FOUND',
};

/** Unknown, another tenant's, or (for costs) retired: the same 404, so existence never leaks. */
export function catalogNotFound(param: string | undefined, resource: CatalogResource): DomainError {
  return new DomainError('not_found', NOT_FOUND_CODES[resource], `No such ${resource.replace('_', ' ')}.`, {
    param,
    details: { resource },
  });
}

export function catalogConflict(code: string, message: string, options: DomainErrorOptions = {}): DomainError {
  return new DomainError('conflict', code, message, options);
}

export function catalogRuleViolation(code: string, message: string, options: DomainErrorOptions = {}): DomainError {
  return new DomainError('rule_violation', code, message, options);
}

export function catalogInvalid(code: string, message: string, options: DomainErrorOptions = {}): DomainError {
  return new DomainError('invalid_request', code, message, options);
}
