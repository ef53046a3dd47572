import { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';

/**
 * A property that holds an object of `model`'s schema or `null`, written as OpenAPI 3.1 reads it:
 * `anyOf: [{$ref}, {type: 'null'}]`. (`nullable: true` beside a reference is 3.0 and does not
 * relax the referenced schema, so strict validators reject the `null`.)
 */
export function ApiNullableRef(model: Type<unknown>, options: { description?: string; required?: boolean } = {}): PropertyDecorator {
  return (target, key) => {
    ApiExtraModels(model)(target.constructor);
    ApiProperty({ ...options, anyOf: [{ $ref: getSchemaPath(model) }, { type: 'null' as const }] })(target, key);
  };
}
