import { Module } from '@nestjs/common';
import {
  Command,
  CommandBus,
  CommandHandler,
  CqrsModule,
  ICommandHandler,
  IQueryHandler,
  Query,
  QueryBus,
  QueryHandler,
} from '@nestjs/cqrs';
import { Test } from '@nestjs/testing';
import {
  BusPortsCheck,
  busWiringProblems,
  COMMAND_HANDLER_METADATA,
  handledMessageOf,
  QUERY_HANDLER_METADATA,
  requiredBusHandlersOf,
  RequiresBusHandlers,
} from './bus-ports';

class ChargeCommand extends Command<string> {}
class FindCustomerQuery extends Query<string> {}

@CommandHandler(ChargeCommand)
class ChargeHandler implements ICommandHandler<ChargeCommand> {
  async execute(): Promise<string> {
    return 'charged';
  }
}

@CommandHandler(ChargeCommand)
class SecondChargeHandler implements ICommandHandler<ChargeCommand> {
  async execute(): Promise<string> {
    return 'charged again';
  }
}

@QueryHandler(FindCustomerQuery)
class FindCustomerHandler implements IQueryHandler<FindCustomerQuery> {
  async execute(): Promise<string> {
    return 'customer';
  }
}

/** The context that handles both messages (a stand-in for identity). */
@Module({ providers: [ChargeHandler, FindCustomerHandler] })
class ProviderContextModule {}

/** A context that sends the other's command and query (a stand-in for billing-wallet). */
@RequiresBusHandlers(ChargeCommand, FindCustomerQuery)
@Module({})
class ConsumerContextModule {}

/** The host's one place for the check (PlatformModule in the application). */
@Module({ providers: [BusPortsCheck] })
class CheckModule {}

describe('bus ports', () => {
  it('reads the metadata @nestjs/cqrs writes for its handlers', () => {
    expect(Reflect.getOwnMetadata(COMMAND_HANDLER_METADATA, ChargeHandler)).toBe(ChargeCommand);
    expect(Reflect.getOwnMetadata(QUERY_HANDLER_METADATA, FindCustomerHandler)).toBe(FindCustomerQuery);
    expect(handledMessageOf(ChargeHandler)).toEqual({ kind: 'command', message: ChargeCommand });
    expect(handledMessageOf(FindCustomerHandler)).toEqual({ kind: 'query', message: FindCustomerQuery });
    expect(handledMessageOf(ProviderContextModule)).toBeUndefined();
    expect(handledMessageOf({ provide: 'x', useValue: 1 })).toBeUndefined();
  });

  it('keeps what a module declares', () => {
    expect(requiredBusHandlersOf(ConsumerContextModule)).toEqual([ChargeCommand, FindCustomerQuery]);
    expect(requiredBusHandlersOf(ProviderContextModule)).toEqual([]);
  });

  it('names the missing handler and the module that needs it', () => {
    const problems = busWiringProblems([
      { module: ConsumerContextModule, providers: [] },
      { module: ProviderContextModule, providers: [FindCustomerHandler] },
    ]);
    expect(problems).toEqual([
      'ConsumerContextModule sends ChargeCommand but no module of this application registers a handler for it: ' +
        'import the module that handles ChargeCommand (a @CommandHandler(ChargeCommand) in its providers).',
    ]);
  });

  it('refuses two handlers of one message', () => {
    const problems = busWiringProblems([
      { module: ProviderContextModule, providers: [ChargeHandler, FindCustomerHandler] },
      { module: CheckModule, providers: [SecondChargeHandler] },
    ]);
    expect(problems).toEqual([
      'ChargeCommand has 2 handlers (ChargeHandler (ProviderContextModule), SecondChargeHandler (CheckModule)); the bus keeps only one.',
    ]);
  });

  it('finds nothing wrong when every port has its one handler', () => {
    expect(
      busWiringProblems([
        { module: ConsumerContextModule, providers: [] },
        { module: ProviderContextModule, providers: [ChargeHandler, FindCustomerHandler] },
      ]),
    ).toEqual([]);
  });

  describe('at application bootstrap', () => {
    it('starts when the host registers the module that handles every port', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [CqrsModule.forRoot(), CheckModule, ConsumerContextModule, ProviderContextModule],
      }).compile();
      await moduleRef.init();
      try {
        expect(await moduleRef.get(CommandBus).execute(new ChargeCommand())).toBe('charged');
        expect(await moduleRef.get(QueryBus).execute(new FindCustomerQuery())).toBe('customer');
      } finally {
        await moduleRef.close();
      }
    });

    it('refuses to start without it, naming the missing handlers and the module that sends them', async () => {
      const moduleRef = await Test.createTestingModule({
        imports: [CqrsModule.forRoot(), CheckModule, ConsumerContextModule],
      }).compile();
      await expect(moduleRef.init()).rejects.toThrow(
        'The command and query buses are not wired:\n' +
          '- ConsumerContextModule sends ChargeCommand but no module of this application registers a handler for it: ' +
          'import the module that handles ChargeCommand (a @CommandHandler(ChargeCommand) in its providers).\n' +
          '- ConsumerContextModule sends FindCustomerQuery but no module of this application registers a handler for it: ' +
          'import the module that handles FindCustomerQuery (a @QueryHandler(FindCustomerQuery) in its providers).',
      );
      await moduleRef.close();
    });
  });
});
