import { ValidationPipe } from '@nestjs/common';
import { invalidInput, VALIDATION_OPTIONS } from './validate-input';

export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATION_OPTIONS,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: invalidInput,
  });
}
