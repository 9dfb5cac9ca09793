import { CanActivate, Inject, Injectable, Logger, NestInterceptor, PipeTransform, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from '../mcp-client.module-definition';
import type { QuestionKind } from '../handlers/client-handlers';
import { McpClientCheckName } from './client-check.types';
import { BUILT_IN_CHECKS, CHECKS_OF, CHECK_ROLE } from './client-checks';

type Check = CanActivate | NestInterceptor | PipeTransform;

/** The check instances that protect one kind of question, in order. */
export interface QuestionChecks {
  guards: CanActivate[];
  interceptors: NestInterceptor[];
  pipes: PipeTransform[];
}

/**
 * Resolves the checks of each kind of question once, at start-up: the built-in provider (which a provider override
 * may replace), the class the `checks` option names instead, or nothing where the option says `false`. Every
 * departure from the built-in checks is logged: a check is never lost by omission.
 */
@Injectable()
export class ClientChecksResolver {
  private readonly logger = new Logger('McpClient');

  constructor(
    @Inject(MCP_CLIENT_OPTIONS) private readonly options: McpClientModuleOptions,
    private readonly moduleRef: ModuleRef,
  ) {}

  async resolve(): Promise<Record<QuestionKind, QuestionChecks>> {
    const chosen = this.options.checks ?? {};
    for (const name of Object.keys(chosen)) {
      if (!(name in BUILT_IN_CHECKS))
        throw new Error(
          `McpClientModule: unknown check "${name}" in the checks option (known: ${Object.keys(BUILT_IN_CHECKS).join(', ')})`,
        );
    }
    const instances = new Map<McpClientCheckName, Check | undefined>();
    for (const name of Object.keys(BUILT_IN_CHECKS) as McpClientCheckName[])
      instances.set(name, await this.instance(name, chosen[name]));
    const of = <T extends Check>(names: McpClientCheckName[]) =>
      names.map((name) => instances.get(name)).filter((check): check is T => check !== undefined);
    const checks = (kind: QuestionKind): QuestionChecks => ({
      guards: of<CanActivate>(CHECKS_OF[kind].guards),
      interceptors: of<NestInterceptor>(CHECKS_OF[kind].interceptors),
      pipes: of<PipeTransform>(CHECKS_OF[kind].pipes),
    });
    return { sampling: checks('sampling'), elicitation: checks('elicitation'), roots: checks('roots') };
  }

  private async instance(
    name: McpClientCheckName,
    choice: Type<Check> | false | undefined,
  ): Promise<Check | undefined> {
    const builtIn = BUILT_IN_CHECKS[name] as Type<Check>;
    if (choice === false) {
      this.logger.warn(`Built-in check ${builtIn.name} (checks.${name}) is disabled by the checks option`);
      return undefined;
    }
    if (choice === undefined) {
      const provided = this.moduleRef.get<Check>(builtIn);
      if (provided.constructor !== builtIn)
        this.logger.log(
          `Built-in check ${builtIn.name} is provided by ${provided.constructor.name} (provider override)`,
        );
      return this.checked(name, provided);
    }
    if (typeof choice !== 'function')
      throw new Error(`McpClientModule: checks.${name} must be a class or false, not ${typeof choice}`);
    this.logger.log(`Built-in check ${builtIn.name} (checks.${name}) is replaced by ${choice.name}`);
    let replacement: Check;
    try {
      replacement = this.moduleRef.get(choice, { strict: false });
    } catch {
      replacement = await this.moduleRef.create(choice);
    }
    return this.checked(name, replacement);
  }

  private checked(name: McpClientCheckName, check: Check): Check {
    const role = CHECK_ROLE[name];
    if (typeof (check as unknown as Record<string, unknown>)[role] !== 'function')
      throw new Error(`McpClientModule: checks.${name} (${check.constructor.name}) must implement ${role}()`);
    return check;
  }
}
