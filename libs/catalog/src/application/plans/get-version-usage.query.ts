import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ReferrerType } from './list-version-referrers.query';

export interface VersionUsageView {
  referrer_counts: Record<ReferrerType, number>;
}

export class GetVersionUsageQuery extends Query<VersionUsageView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly version: number,
  ) {
    super();
  }
}
