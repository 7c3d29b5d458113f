import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import {
  ClearDefaultTemplateCommand,
  CopyTemplateCommand,
  CreateTemplateCommand,
  DeleteTemplateCommand,
  GetTemplateQuery,
  ListEmailKindsQuery,
  ListTemplatesQuery,
  Locale,
  MarkDefaultTemplateCommand,
  negotiateLocale,
  PreviewFormat,
  PRINTED_DOCUMENT_TYPES,
  SYSTEM_TEMPLATE_IDS,
  PreviewTemplateQuery,
  templateResponse,
  TemplateThumbnailQuery,
  TemplateView,
  UpdateTemplateCommand,
} from '@app/documents';
import type { RenderAllowance } from '@app/documents';
import type { Actor } from '@app/shared-kernel';
import type { FastifyReply } from 'fastify';
import { CurrentActor } from '../http/auth/current-actor.decorator';
import { RequireScope } from '../http/auth/route-access';
import { ApiErrors } from '../http/error-catalog';
import { PureResponse } from '../http/idempotency.interceptor';
import { RENDERED_CONTENT_POLICY, RENDERED_CONTENT_POLICY_HEADER } from './rendered-content-policy';
import {
  CopyDocumentTemplateDto,
  CreateDocumentTemplateDto,
  DocumentTemplateDto,
  DocumentTemplateListDto,
  EmailKindListDto,
  ListDocumentTemplatesQueryDto,
  PreviewDocumentTemplateDto,
  PreviewTemplateQueryDto,
  UpdateDocumentTemplateDto,
} from './document-templates.dto';
import { OperationId } from '../http/operation-id';

const ACCEPT_LANGUAGE = {
  name: 'Accept-Language',
  required: false,
  description: 'Locale of anchor_name: en, de or fr (q-values honoured); English otherwise.',
};

/** Preview formats by media type; the PDF unless the Accept header prefers another. */
/** A stable id to try a read-only route with: the system invoice template exists in every workspace. */
const SYSTEM_TEMPLATE_ID = {
  name: 'id',
  example: SYSTEM_TEMPLATE_IDS.invoice,
  description: 'A template id (pre-filled: the system invoice template, which every workspace has).',
};

const FORMATS: Record<string, PreviewFormat> = { 'application/pdf': 'pdf', 'text/html': 'html', 'text/plain': 'text' };

export function negotiateFormat(accept: string | undefined): PreviewFormat {
  if (!accept) return 'pdf';
  const ranked = accept
    .split(',')
    .map((part, index) => {
      const [type, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
      return { type: type.trim(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((entry) => Number.isFinite(entry.q) && entry.q > 0 && FORMATS[entry.type] !== undefined)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked[0] ? FORMATS[ranked[0].type] : 'pdf';
}

const SVG_EXAMPLE =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="339.43" viewBox="0 0 595.28 841.89">\n' +
  '<rect x="0" y="0" width="595.28" height="841.89" fill="#ffffff"/>\n<rect x="0" y="0" width="595.28" height="6" fill="#1f3a5f"/>\n' +
  '<text x="482.14" y="74.5" font-family="DejaVu Sans, sans-serif" font-weight="bold" font-size="20" fill="#1f3a5f" ' +
  'textLength="65.14" lengthAdjust="spacingAndGlyphs">Invoice</text>\n</svg>';

/** The thumbnail's validators, sent on its 200 and on its 304 alike. */
const THUMBNAIL_CACHE_HEADERS = {
  ETag: { description: 'Strong entity tag.', schema: { type: 'string', example: '"5d41402abc4b2a76b9719d911017c592"' } },
  'Cache-Control': {
    description: 'private, no-cache: revalidate with If-None-Match.',
    schema: { type: 'string', example: 'private, no-cache' },
  },
};

@ApiTags('Document templates')
@Controller('document_templates')
export class DocumentTemplatesController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  private respond(view: TemplateView, locale: Locale, reply: FastifyReply) {
    void reply.header('Content-Language', locale).header('Vary', 'Accept-Language');
    return templateResponse(view, locale);
  }

  @OperationId('listDocumentTemplates')
  @Get()
  @RequireScope('document_templates:read')
  @ApiOperation({
    summary:
      'List templates by updated_at (default newest first); the first page starts with the matching system defaults. ' +
      'E-mail rows carry anchor_key and anchor_name (in the Accept-Language locale); printed rows carry neither.',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiOkResponse({ type: DocumentTemplateListDto })
  @ApiErrors('INVALID_SORT')
  async list(
    @CurrentActor() actor: Actor,
    @Query() query: ListDocumentTemplatesQueryDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const locale = negotiateLocale(acceptLanguage);
    const page = await this.queries.execute(
      new ListTemplatesQuery(actor, query.pageLimit, query.cursor, {
        sort: query.sort,
        documentType: query.document_type,
        status: query.status,
        anchorKey: query.anchor_key,
        counts: query.counts,
      }),
    );
    void reply.header('Content-Language', locale).header('Vary', 'Accept-Language');
    return {
      data: page.data.map((view) => templateResponse(view, locale)),
      pagination: page.pagination,
      ...(page.counts && { counts: page.counts }),
    };
  }

  @OperationId('createDocumentTemplate')
  @Post()
  @HttpCode(201)
  @RequireScope('document_templates:write')
  @ApiOperation({
    summary:
      'Create a template: printed (document_types of invoice, credit_note, quote; default [invoice]; status active) or ' +
      'an e-mail (document_types [email], anchor_key; status draft).',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiCreatedResponse({ type: DocumentTemplateDto })
  @ApiErrors('RENDER_LIMIT_EXCEEDED', 'RENDER_BUDGET_EXCEEDED')
  async create(
    @CurrentActor() actor: Actor,
    @Body() body: CreateDocumentTemplateDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const view = await this.commands.execute(
      new CreateTemplateCommand(actor, {
        name: body.name,
        description: body.description,
        documentTypes: body.document_types,
        anchorKey: body.anchor_key,
        document: body.template_json,
      }),
    );
    void reply.header('Location', `/v1/document_templates/${view.template.id}`);
    return this.respond(view, negotiateLocale(acceptLanguage), reply);
  }

  @OperationId('listEmailKinds')
  @Get('email_kinds')
  @RequireScope('document_templates:read')
  @ApiOperation({
    summary: 'The mail kinds an e-mail template can be written for, named in the request locale, with their variables.',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiOkResponse({ type: EmailKindListDto })
  async emailKinds(
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const locale = negotiateLocale(acceptLanguage);
    const kinds = await this.queries.execute(new ListEmailKindsQuery());
    void reply.header('Content-Language', locale).header('Vary', 'Accept-Language');
    return {
      data: kinds.map((kind) => ({
        object: 'email_kind',
        anchor_key: kind.anchorKey,
        name: kind.name[locale],
        variables: kind.variables.map((variable) => ({
          name: variable.name,
          description: variable.description[locale],
          example: variable.example,
        })),
      })),
    };
  }

  @OperationId('getDocumentTemplate')
  @Get(':id')
  @ApiParam(SYSTEM_TEMPLATE_ID)
  @RequireScope('document_templates:read')
  @ApiOperation({ summary: 'Get a template; system defaults are resolved from their built-in definitions.' })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiOkResponse({ type: DocumentTemplateDto })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND')
  async get(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.respond(await this.queries.execute(new GetTemplateQuery(actor, id)), negotiateLocale(acceptLanguage), reply);
  }

  @OperationId('updateDocumentTemplate')
  @Patch(':id')
  @RequireScope('document_templates:write')
  @ApiOperation({
    summary:
      'Update a template (expected_version required; omitted fields unchanged; a stale version is 409 CONFLICT with ' +
      'details.current_version). System templates are read-only (409 SYSTEM_TEMPLATE_READ_ONLY).',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiOkResponse({ type: DocumentTemplateDto })
  @ApiErrors(
    'DOCUMENT_TEMPLATE_NOT_FOUND',
    'CONFLICT',
    'SYSTEM_TEMPLATE_READ_ONLY',
    'INVALID_STATUS_TRANSITION',
    'ANCHOR_ALREADY_PUBLISHED',
    'RENDER_LIMIT_EXCEEDED',
    'RENDER_BUDGET_EXCEEDED',
  )
  async update(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: UpdateDocumentTemplateDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const view = await this.commands.execute(
      new UpdateTemplateCommand(actor, id, {
        expectedVersion: body.expected_version,
        name: body.name,
        description: body.description,
        documentTypes: body.document_types,
        status: body.status,
        document: body.template_json,
      }),
    );
    return this.respond(view, negotiateLocale(acceptLanguage), reply);
  }

  @OperationId('deleteDocumentTemplate')
  @Delete(':id')
  @HttpCode(204)
  @RequireScope('document_templates:write')
  @ApiOperation({
    summary: 'Delete a template (soft); the defaults it held fall back to the system defaults. System templates: 409.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND', 'SYSTEM_TEMPLATE_READ_ONLY')
  async remove(@CurrentActor() actor: Actor, @Param('id') id: string): Promise<void> {
    await this.commands.execute(new DeleteTemplateCommand(actor, id));
  }

  @OperationId('copyDocumentTemplate')
  @Post(':id/copy')
  @ApiParam(SYSTEM_TEMPLATE_ID)
  @HttpCode(201)
  @RequireScope('document_templates:write')
  @ApiOperation({
    summary: 'Copy a template into a writable one of this workspace; system defaults are copied from their built-in baseline.',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiCreatedResponse({ type: DocumentTemplateDto })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND')
  async copy(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: CopyDocumentTemplateDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const view = await this.commands.execute(new CopyTemplateCommand(actor, id, body.name));
    void reply.header('Location', `/v1/document_templates/${view.template.id}`);
    return this.respond(view, negotiateLocale(acceptLanguage), reply);
  }

  @OperationId('markDocumentTemplateDefault')
  @Put(':id/defaults/:document_type')
  @ApiParam({
    name: 'document_type',
    enum: [...PRINTED_DOCUMENT_TYPES],
    example: 'invoice',
    description: 'A printed document type (the published e-mail of a mail kind is its default).',
  })
  @RequireScope('document_templates:write')
  @ApiOperation({
    summary:
      'Make this template the workspace default for a printed document type (replacing the previous one); system templates are valid targets.',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiOkResponse({ type: DocumentTemplateDto })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND', 'DEFAULT_NOT_ALLOWED')
  async markDefault(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Param('document_type') documentType: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const view = await this.commands.execute(new MarkDefaultTemplateCommand(actor, id, documentType));
    return this.respond(view, negotiateLocale(acceptLanguage), reply);
  }

  @OperationId('clearDocumentTemplateDefault')
  @Delete(':id/defaults/:document_type')
  @ApiParam({
    name: 'document_type',
    enum: [...PRINTED_DOCUMENT_TYPES],
    example: 'invoice',
    description: 'A printed document type (the published e-mail of a mail kind is its default).',
  })
  @HttpCode(200)
  @RequireScope('document_templates:write')
  @ApiOperation({
    summary:
      'Clear the default slot this template holds (else 409 NOT_DEFAULT_HOLDER); rendering falls back to the system default.',
  })
  @ApiHeader(ACCEPT_LANGUAGE)
  @ApiOkResponse({ type: DocumentTemplateDto })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND', 'NOT_DEFAULT_HOLDER')
  async clearDefault(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Param('document_type') documentType: string,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const view = await this.commands.execute(new ClearDefaultTemplateCommand(actor, id, documentType));
    return this.respond(view, negotiateLocale(acceptLanguage), reply);
  }

  @OperationId('previewDocumentTemplate')
  @Post(':id/preview')
  @ApiParam(SYSTEM_TEMPLATE_ID)
  @HttpCode(200)
  @PureResponse()
  // A pure render: it changes nothing, so a read-only key may preview (as it may read the thumbnail).
  @RequireScope('document_templates:read')
  @ApiOperation({
    summary:
      'Render the template (or the unsaved template_json of the body) with sample data: a PDF by default; ' +
      '`format=html` or `format=text` (or, without `format`, `Accept: text/html` or `text/plain`) gives the HTML or ' +
      'plain-text render. Identical bytes on repeat; rate-limited ' +
      'per organization (PDF_PREVIEW_RATE_LIMIT_PER_MINUTE). Idempotency-Key is accepted, not required; nothing of the render ' +
      'is stored under it (a retry renders again).',
  })
  @ApiProduces('application/pdf', 'text/html', 'text/plain')
  @ApiOkResponse({
    description: 'The rendered document. `Preview-Cache: hit` when served from the short-lived cache.',
    headers: {
      ...RENDERED_CONTENT_POLICY_HEADER,
      'Preview-Cache': { description: 'hit or miss.', schema: { type: 'string', enum: ['hit', 'miss'], example: 'miss' } },
    },
    content: {
      'application/pdf': {
        schema: { type: 'string', format: 'binary', description: 'A PDF with the template’s fonts embedded.' },
      },
      'text/html': { schema: { type: 'string', example: '<!DOCTYPE html><html lang="en">…</html>' } },
      'text/plain': {
        schema: {
          type: 'string',
          example: 'Subject: Invoice INV-2026-0042 from Northwind Analytics GmbH\n\nHello Acme Corporation,',
        },
      },
    },
  })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND', 'RENDER_LIMIT_EXCEEDED', 'RENDER_BUDGET_EXCEEDED')
  async preview(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Body() body: PreviewDocumentTemplateDto,
    @Query() query: PreviewTemplateQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const format = query.format ?? negotiateFormat(accept);
    const result = await this.queries.execute(
      new PreviewTemplateQuery(
        actor,
        id,
        { documentType: body.document_type, documentTypes: body.document_types, document: body.template_json },
        format,
      ),
    );
    void reply
      .header('Content-Type', result.contentType)
      .header('Preview-Cache', result.cacheHit ? 'hit' : 'miss')
      .header('Vary', 'Accept');
    if (format === 'pdf') void reply.header('Content-Disposition', 'inline; filename="preview.pdf"');
    if (format === 'html') void reply.header('Content-Security-Policy', RENDERED_CONTENT_POLICY);
    announceRenderBudget(reply, result.rateLimit);
    return result.body;
  }

  @OperationId('getDocumentTemplateThumbnail')
  @Get(':id/thumbnail')
  @ApiParam(SYSTEM_TEMPLATE_ID)
  @RequireScope('document_templates:read')
  @ApiOperation({
    summary:
      'An SVG miniature of the first page, with a strong ETag keyed on updated_at; If-None-Match with it answers 304 without a body.',
  })
  @ApiHeader({ name: 'If-None-Match', required: false, description: 'A prior ETag: 304 while the template is unchanged.' })
  @ApiProduces('image/svg+xml')
  @ApiOkResponse({
    description: 'The thumbnail.',
    headers: { ...RENDERED_CONTENT_POLICY_HEADER, ...THUMBNAIL_CACHE_HEADERS },
    content: { 'image/svg+xml': { schema: { type: 'string', format: 'binary', example: SVG_EXAMPLE } } },
  })
  @ApiResponse({
    status: 304,
    description: 'Not modified: the ETag still names the current thumbnail; no body.',
    headers: THUMBNAIL_CACHE_HEADERS,
  })
  @ApiErrors('DOCUMENT_TEMPLATE_NOT_FOUND', 'RENDER_LIMIT_EXCEEDED', 'RENDER_BUDGET_EXCEEDED')
  async thumbnail(
    @CurrentActor() actor: Actor,
    @Param('id') id: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | undefined> {
    const result = await this.queries.execute(new TemplateThumbnailQuery(actor, id, ifNoneMatch));
    void reply.header('ETag', result.etag).header('Cache-Control', 'private, no-cache');
    announceRenderBudget(reply, result.rateLimit);
    if (result.svg === null) {
      void reply.status(304);
      return undefined;
    }
    void reply.header('Content-Type', 'image/svg+xml; charset=utf-8').header('Content-Security-Policy', RENDERED_CONTENT_POLICY);
    return result.svg;
  }
}

/** The organization's render budget beside the caller's own limit, when this request spent it. */
function announceRenderBudget(reply: FastifyReply, allowance: RenderAllowance | null): void {
  if (!allowance) return;
  const { limit, remaining, resetSeconds } = allowance;
  const append = (name: string, value: string) => {
    const current = reply.getHeader(name);
    void reply.header(name, typeof current === 'string' && current ? `${current}, ${value}` : value);
  };
  append('RateLimit-Policy', `"pdf_preview";q=${limit};w=60`);
  append('RateLimit', `"pdf_preview";r=${remaining};t=${resetSeconds}`);
}
