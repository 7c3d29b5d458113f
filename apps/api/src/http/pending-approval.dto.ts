import type { FastifyReply } from 'fastify';
import { ApiProperty } from './api-property';

class PendingApprovalRefDto {
  @ApiProperty({ example: '0193a5c2-7f4e-7b1a-9c1d-2f0e4b5a6d05' }) id!: string;
  @ApiProperty({ example: 'pending' }) status!: string;
  @ApiProperty({ example: 'wallet.adjust' }) checkpoint!: string;
}

/** The 202 body of a request held for a human approval (wallet adjustments, approval settings). */
export class PendingApprovalDto {
  @ApiProperty({ example: 'approval_request' }) object!: string;
  @ApiProperty({ example: 'pending_approval' }) status!: string;
  @ApiProperty({ type: () => PendingApprovalRefDto }) approval!: PendingApprovalRefDto;
}

/** Answers 202 with `Location` at the approval to poll. */
export function pendingApproval(
  reply: FastifyReply,
  approval: { id: string; status: string; checkpoint: string },
): PendingApprovalDto {
  void reply.status(202).header('Location', `/v1/approvals/${approval.id}`);
  return { object: 'approval_request', status: 'pending_approval', approval };
}
