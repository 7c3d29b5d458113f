import { Query } from '@nestjs/cqrs';
import { Actor, Page } from '@app/shared-kernel';

export const REFERRER_TYPES = ['subscription', 'change'] as const;

export type ReferrerType = (typeof REFERRER_TYPES)[number];

export interface VersionReferrerView {
  referrer_type: ReferrerType;
  referrer_id: string;
  created_at: Date;
}

export class ListVersionReferrersQuery extends Query<Page<VersionReferrerView>> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
    readonly type: string | undefined,
    readonly limit: unknown,
    readonly cursor: string | undefined,
  ) {
    super();
  }
}
