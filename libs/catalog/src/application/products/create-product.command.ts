import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ProductInput } from './product-input';

export class CreateProductCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly input: ProductInput & { name: string },
  ) {
    super();
  }
}
