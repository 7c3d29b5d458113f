import { PlanDetails } from '../../domain/plan-details';
import { invalidParameter } from '@app/shared-kernel';
import { PRICE_CADENCE_UNITS, PriceCadenceUnit } from '../../domain/plan';

/** Plan fields as the API sends them; undefined: not sent; null: leave unchanged (create: none). */
export type PlanInput = { [K in keyof PlanDetails]?: PlanDetails[K] | null } & { priceCadenceUnit?: string | null };

const TAG = /^[A-Za-z0-9 _.:-]{1,64}$/;

export function cadenceOf(value: unknown): PriceCadenceUnit {
  if (!(PRICE_CADENCE_UNITS as readonly unknown[]).includes(value)) {
    throw invalidParameter(
      'price_cadence_unit',
      'INVALID_VALUE',
      `price_cadence_unit must be one of ${PRICE_CADENCE_UNITS.join(', ')}.`,
    );
  }
  return value as PriceCadenceUnit;
}

export function nameOf(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
    throw invalidParameter('name', 'INVALID_FORMAT', 'name must be 1–200 characters.');
  }
  return value.trim();
}

function tagsOf(value: string[]): string[] {
  if (value.length > 50 || value.some((tag) => typeof tag !== 'string' || !TAG.test(tag))) {
    throw invalidParameter('tags', 'INVALID_VALUE', 'tags: at most 50, each 1–64 characters of letters, digits, space, _ . : -');
  }
  return [...new Set(value)];
}

/** The live fields a body changes: null and undefined leave a field as it is; "" clears a text. */
export function detailChanges(input: PlanInput): Partial<PlanDetails> {
  const text = (value: string | null | undefined) =>
    value === undefined || value === null ? undefined : value === '' ? null : value;
  const changes: Partial<PlanDetails> = {
    name: input.name === undefined || input.name === null ? undefined : nameOf(input.name),
    description: text(input.description),
    publicDescription: text(input.publicDescription),
    externalId: text(input.externalId),
    metadata: input.metadata ?? undefined,
    customFields: input.customFields ?? undefined,
    translations: input.translations ?? undefined,
    tags: input.tags === undefined || input.tags === null ? undefined : tagsOf(input.tags),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}
