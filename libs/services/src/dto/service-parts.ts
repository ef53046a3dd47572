import { Type } from '@nestjs/common';
import { DECORATORS } from '@nestjs/swagger';
import { ApiNullableRef } from '@app/core';
import { SERVICE_TYPES, ServiceType } from '../service.types';

/**
 * What each kind adds to the service response, by key: each kind's area names its own part
 * (`declare module '@app/services' { interface ServiceParts { ... } }` beside its summary class),
 * so the services area names none.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ServiceParts {}

/** A kind's part of the service response: its services show it under `key`, the services of other kinds `null`. */
export interface ServicePart {
  type: ServiceType;
  key: string;
  response: Type<object>;
  description: string;
}

/** One service's part, as the response shows it. */
export interface ShownPart {
  key: string;
  value: object;
}

const declared: ServicePart[] = [];

/** In SERVICE_TYPES order: the order the response and its schema show them, whatever order the areas load in. */
export function declaredServiceParts(): readonly ServicePart[] {
  return declared;
}

/**
 * Adds a part to `target`'s schema when the kind's file loads: the app may build its OpenAPI
 * document before its modules start (configure-app.ts), too early for a kind's onModuleInit.
 */
export function addServicePart(target: Type<object>, part: ServicePart): void {
  if (declared.some((other) => other.key === part.key)) throw new Error(`The service part ${part.key} is declared twice.`);
  declared.push(part);
  declared.sort((a, b) => SERVICE_TYPES.indexOf(a.type) - SERVICE_TYPES.indexOf(b.type));
  // What TypeScript records for a declared `Part | null` property, which Swagger reads as its type.
  Reflect.defineMetadata('design:type', Object, target.prototype, part.key);
  ApiNullableRef(part.response, { description: part.description })(target.prototype, part.key);
  putLast(
    DECORATORS.API_MODEL_PROPERTIES_ARRAY,
    target.prototype,
    declared.map((p) => `:${p.key}`),
  );
  putLast(
    DECORATORS.API_EXTRA_MODELS,
    target,
    declared.map((p) => p.response),
  );
}

/** Swagger lists properties and explores extra models in the order of these metadata arrays. */
function putLast(metadataKey: string, on: object, ordered: unknown[]): void {
  const current = (Reflect.getMetadata(metadataKey, on) ?? []) as unknown[];
  Reflect.defineMetadata(metadataKey, [...current.filter((entry) => !ordered.includes(entry)), ...ordered], on);
}
