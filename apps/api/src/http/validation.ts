import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, FieldError, SharedErrors } from '@app/shared-kernel';
import { getMetadataStorage } from 'class-validator';
import { closestName } from './closest-name';
import { parsesOwnQuery } from './own-query';

/** class-validator constraint names → the contract's stable field error codes. */
const CONSTRAINT_CODES: Record<string, string> = {
  whitelistValidation: 'UNKNOWN_PARAMETER',
  isDefined: 'REQUIRED',
  isNotEmpty: 'REQUIRED',
  isString: 'INVALID_TYPE',
  isBoolean: 'INVALID_TYPE',
  isInt: 'INVALID_TYPE',
  isNumber: 'INVALID_TYPE',
  isArray: 'INVALID_TYPE',
  isObject: 'INVALID_TYPE',
  nestedValidation: 'INVALID_TYPE',
  isIn: 'INVALID_VALUE',
  isEnum: 'INVALID_VALUE',
  min: 'OUT_OF_RANGE',
  max: 'OUT_OF_RANGE',
  minLength: 'OUT_OF_RANGE',
  maxLength: 'OUT_OF_RANGE',
  arrayMinSize: 'OUT_OF_RANGE',
  arrayMaxSize: 'OUT_OF_RANGE',
};

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const param = parent
      ? /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`
      : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => ({
      param,
      code: (error.contexts?.[constraint]?.code as string | undefined) ?? CONSTRAINT_CODES[constraint] ?? 'INVALID_VALUE',
      message: newcomerMessage(error, constraint, param) ?? message,
    }));
    return [...own, ...flatten(error.children ?? [], param)];
  });
}

/** The mistakes a newcomer makes first, answered with what to send instead (the codes stay class-validator's). */
function newcomerMessage(error: ValidationError, constraint: string, param: string): string | undefined {
  if (constraint === 'whitelistValidation') {
    const guess = closestName(error.property, declaredProperties(error.target));
    return `Unknown parameter: ${param}.${guess ? ` Did you mean ${guess}?` : ''}`;
  }
  if (error.value === undefined) return `${param} is required.`;
  if (constraint === 'isString' && typeof error.value === 'number') {
    return `${param} must be a string, not a JSON number: amounts are decimal strings such as "10.50".`;
  }
  return undefined;
}

/** The fields a DTO declares (those class-validator knows), where a mistyped one was sent. */
function declaredProperties(target: object | undefined): string[] {
  if (target === undefined) return [];
  const metadata = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}

/** A request refused by its shape, before any handler ran: never stored for idempotent replay. */
export class RequestValidationError extends DomainError {}

export function validationFailed(errors: FieldError[]): DomainError {
  const first = errors[0];
  return new RequestValidationError(
    SharedErrors.VALIDATION_ERROR.kind,
    SharedErrors.VALIDATION_ERROR.code,
    first ? first.message : 'The request is invalid.',
    {
      param: first?.param,
      errors,
    },
  );
}

/** The app's pipe: DTOs are validated, except a query its route parses itself (see ParsesOwnQuery). */
class ApiValidationPipe extends ValidationPipe {
  protected override toValidate(metadata: ArgumentMetadata): boolean {
    return !parsesOwnQuery(metadata) && super.toValidate(metadata);
  }

  /**
   * A path parameter reaches its handler as the text of the URL: a route that wants a number parses
   * it with its own pipe (VersionNumberPipe). Coercing by the reflected type made the outcome depend
   * on the compiler: tsc reflects `VersionNumber` (number & brand) as Number, so the built server
   * turned "1" into 1 before VersionNumberPipe (which reads text) and refused every version with
   * 400, while jest (swc, which reflects Object) passed.
   */
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type TargetLookUp = MetadataStorage['getTargetValidationMetadatas'];
type ValidationMetadata = ReturnType<TargetLookUp>[number];

const memoized = new WeakSet<MetadataStorage>();

/**
 * class-validator finds a DTO's rules again on every validation, walking every class it knows
 * (for inherited rules) and grouping them by property: on a money request, more CPU than the
 * checks themselves. The rules are fixed once the DTO classes are loaded, so each lookup is kept
 * (and its grouping) until a rule is added, which drops them all. Lookups with groups (the app
 * uses none) are not kept. The arrays handed out are shared: class-validator only reads them.
 */
export function memoizeValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  if (memoized.has(storage)) return;
  memoized.add(storage);
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const addRule = storage.addValidationMetadata.bind(storage);
  let lookUps = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let handedOut = new WeakSet<ValidationMetadata[]>();
  let groupings = new WeakMap<ValidationMetadata[], ReturnType<MetadataStorage['groupByPropertyName']>>();
  storage.addValidationMetadata = (metadata) => {
    lookUps = new Map();
    handedOut = new WeakSet();
    groupings = new WeakMap();
    addRule(metadata);
  };
  const cachedLookUp: TargetLookUp = (target, schema, always, strictGroups, groups) => {
    if (groups?.length) return lookUp(target, schema, always, strictGroups, groups);
    const key = `${String(schema)}\u0000${always}\u0000${strictGroups}`;
    let byOptions = lookUps.get(target);
    if (byOptions === undefined) lookUps.set(target, (byOptions = new Map()));
    let metadata = byOptions.get(key);
    if (metadata === undefined) {
      metadata = lookUp(target, schema, always, strictGroups, groups);
      byOptions.set(key, metadata);
      handedOut.add(metadata);
    }
    return metadata;
  };
  storage.getTargetValidationMetadatas = cachedLookUp;
  storage.groupByPropertyName = (metadata) => {
    let grouped = groupings.get(metadata);
    if (grouped === undefined) {
      grouped = group(metadata);
      // Only the arrays this cache handed out are fixed; any other may be a caller's own.
      if (handedOut.has(metadata)) groupings.set(metadata, grouped);
    }
    return grouped;
  };
}

/** Whitelist and forbid unknown fields: anything not declared on the DTO is a 400. */
export function createValidationPipe(): ValidationPipe {
  memoizeValidationMetadata();
  return new ApiValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    // Target and value shape the messages (newcomerMessage); neither is ever copied into the answer.
    validationError: { target: true, value: true },
    exceptionFactory: (errors) => validationFailed(flatten(errors)),
  });
}
