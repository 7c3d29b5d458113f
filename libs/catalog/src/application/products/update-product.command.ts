import { Command } from '@nestjs/cqrs';
import { Actor } from '@app/shared-kernel';
import { ProductInput } from './product-input';

export class UpdateProductCommand extends Command<string> {
  constructor(
    readonly actor: Actor,
    readonly productId: string,
    readonly input: ProductInput,
  ) {
    super();
  }
}
