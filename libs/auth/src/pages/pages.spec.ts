import { errorPage, markup, renderPage } from '@app/core';
import { confirmFormPage } from './confirm-email.page';
import { resetDonePage, resetFormPage } from './reset-password.page';

describe('account pages markup', () => {
  it('markup escapes every inserted value, in text and in attributes; markup it made stays markup', () => {
    const name = `"><script>alert('x')</script>&`;
    expect(markup`<p title="${name}">${name}</p>`.markup).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>',
    );
    expect(markup`<ul>${['<a>', markup`<li>${'<b>'}</li>`]}</ul>`.markup).toBe('<ul>&lt;a&gt;<li>&lt;b&gt;</li></ul>');
    expect(markup`${null}${undefined}${false}${0}`.markup).toBe('0');
  });

  it('the reset form escapes the token and the address it shows', () => {
    const page = renderPage(resetFormPage('hpr_"><img src=x>', 'o\'brien"<x>@example.test', { password: 'Enter a new password.' }));
    expect(page).not.toContain('<img');
    expect(page).not.toContain('<x>');
    expect(page).toContain('value="hpr_&quot;&gt;&lt;img src=x&gt;"');
    expect(page).toContain('o&#39;brien&quot;&lt;x&gt;@example.test');
  });

  it('a page with errors says so first in its title, and the first invalid field takes the focus', () => {
    const page = resetFormPage('hpr_t', 'a@example.test', { confirmPassword: 'The two passwords do not match.' });
    expect(page.status).toBe(400);
    const markup = renderPage(page);
    expect(markup).toContain('<title>Error: Choose a new password - Hosting account</title>');
    expect(markup).toMatch(/id="confirm-password"[^>]*aria-invalid="true" autofocus>/);
    expect(markup).not.toMatch(/id="new-password"[^>]*aria-invalid/);
    expect(renderPage(resetFormPage('hpr_t', 'a@example.test'))).not.toContain('role="alert"');
  });

  it('the done page counts the revoked keys', () => {
    expect(renderPage(resetDonePage('a@example.test', 0, undefined))).toContain('The account had no API keys.');
    expect(renderPage(resetDonePage('a@example.test', 3, undefined))).toContain(
      '3 API keys were revoked: programs that used them need a new key.',
    );
  });

  it('the confirm page posts; an error page is an alert', () => {
    expect(renderPage(confirmFormPage('hev_t', { email: 'a@example.test', change: true }))).toContain(
      'Confirm <strong>a@example.test</strong> as the new email address',
    );
    const error = errorPage(429, 'Too many attempts', 'Too many requests. Retry in 5 seconds.', undefined, { 'Retry-After': '5' });
    expect(renderPage(error)).toContain('<div class="alert" role="alert"><p>Too many requests. Retry in 5 seconds.</p></div>');
  });
});
