import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isUuid } from '@app/shared-kernel';
import { verificationNotFound, verificationView } from './verification-lifecycle';
import { GetVerificationQuery } from './get-verification.query';
import { VerificationReads } from './verification-reads';
import { VerificationView } from './verification.view';

@QueryHandler(GetVerificationQuery)
export class GetVerificationHandler implements IQueryHandler<GetVerificationQuery> {
  constructor(private readonly verifications: VerificationReads) {}

  async execute({ actor, verificationId }: GetVerificationQuery): Promise<VerificationView> {
    const verification = isUuid(verificationId) ? await this.verifications.find(actor, verificationId) : undefined;
    if (!verification) throw verificationNotFound();
    return verificationView(verification);
  }
}
