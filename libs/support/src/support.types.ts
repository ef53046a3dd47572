export const TICKET_STATUSES = ['open', 'answered', 'customer_reply', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const PRIORITIES = ['low', 'medium', 'high'] as const;
export type Priority = (typeof PRIORITIES)[number];
export const DEPARTMENTS = ['general', 'billing', 'technical', 'abuse'] as const;
export type Department = (typeof DEPARTMENTS)[number];
export type AuthorType = 'customer' | 'staff';

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_FILES_PER_PRESIGN = 5;
export const UPLOAD_URL_TTL_MS = 15 * 60 * 1000;
export const DOWNLOAD_URL_TTL_MS = 5 * 60 * 1000;
/** Uploads no message uses are deleted this long after their upload URL expired. */
export const UNREFERENCED_GRACE_MS = 60 * 60 * 1000;
