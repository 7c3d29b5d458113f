import { Role } from '../../domain/scopes';
import { UserView } from './user.view';

export interface UserRow {
  id: string;
  email: string;
  role: Role;
  created_at: Date;
}

export function toView(row: UserRow): UserView {
  return { id: row.id, email: row.email, role: row.role, createdAt: row.created_at };
}
