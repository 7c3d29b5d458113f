import { Query } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { VerificationView } from './verification.view';

export class GetVerificationQuery extends Query<VerificationView> {
  constructor(
    readonly actor: Actor,
    readonly verificationId: string,
  ) {
    super();
  }
}
