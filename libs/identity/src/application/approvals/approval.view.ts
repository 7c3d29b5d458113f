export interface ApprovalView {
  id: string;
  checkpoint: string;
  status: 'pending' | 'approved' | 'rejected' | 'failed';
  payload: Record<string, unknown>;
  requestedBy: { type: string; id: string };
  decidedBy: { type: 'user'; id: string } | null;
  decidedAt: Date | null;
  decisionReason: string | null;
  result: Record<string, unknown> | null;
  createdAt: Date;
}
