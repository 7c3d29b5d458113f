import { Role } from '../../domain/scopes';

export interface UserView {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
}
