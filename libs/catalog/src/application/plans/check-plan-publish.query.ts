import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';

export interface PublishCheckView {
  ok: boolean;
  code: string | null;
  message: string | null;
}

/** Would publishing the working draft now (or at `scheduledFor`) succeed? */
export class CheckPlanPublishQuery extends Query<PublishCheckView> {
  constructor(
    readonly actor: Actor,
    readonly planId: string,
    readonly scheduledFor: Date | undefined,
  ) {
    super();
  }
}
