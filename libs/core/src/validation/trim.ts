import { Transform } from 'class-transformer';

const trimmed = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const trimmedLower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** A string field loses its outer white space before validation; anything else stays as sent, for the rules to refuse. */
export const Trim = (): PropertyDecorator => Transform(trimmed);

/** As `Trim`, and in lower case (email addresses). */
export const TrimLower = (): PropertyDecorator => Transform(trimmedLower);
