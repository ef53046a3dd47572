// Kept in step with package.json by hand: reading it at run time would tie dist/ to the layout.
export const VERSION = '0.1.0';
