import { parseHTML } from 'linkedom';
import { describe, expect, it } from 'vitest';
import { findContactSignals, inferCountry } from './contact-signals.js';

const NO_COUNTRY_URL = 'http://127.0.0.1:8080/contact';

interface PageOptions {
  readonly lang?: string;
  readonly head?: string;
}

function page(body: string, options: PageOptions = {}): Document {
  const lang = options.lang === undefined ? '' : ` lang="${options.lang}"`;
  const html = `<!doctype html><html${lang}><head>${options.head ?? ''}</head><body>${body}</body></html>`;
  return parseHTML(html).document as unknown as Document;
}

function addressIn(country: string): string {
  return `<script type="application/ld+json">{"@type":"LocalBusiness","address":{"@type":"PostalAddress","addressCountry":"${country}"}}</script>`;
}

function signals(body: string, url = NO_COUNTRY_URL, options: PageOptions = {}) {
  return findContactSignals(page(body, options), url);
}

function emails(body: string): string[] {
  return signals(body).emails;
}

function phones(body: string, url = NO_COUNTRY_URL, options: PageOptions = {}): string[] {
  return signals(body, url, options).phoneNumbers;
}

describe('emails', () => {
  it('reads mailto: links: %-decoded, several per link, without the query, any case of scheme', () => {
    expect(
      emails(
        '<a href=" MAILTO:Sales%40Acme-Widgets.co.uk,info@acme.io?subject=Hi&cc=cc@acme.io">Write</a>' +
          '<a href="mailto:o\'brien@acme.ie">Pat</a><a href="mailto:%E0%A4%A">bad escape</a>',
      ),
    ).toEqual(['sales@acme-widgets.co.uk', 'info@acme.io', "o'brien@acme.ie"]);
  });

  it('finds addresses in text, lower-cased, without the sentence dot, each once, in document order', () => {
    expect(
      emails(
        '<p>Write to John.Doe+sales@Acme.IO. Or (support@help.acme.io), <b>JOHN.DOE+SALES@acme.io</b></p>' +
          '<a href="mailto:first@acme.io">first@acme.io</a><p>Email:press@acme.io; jobs@acme.co.uk!</p>',
      ),
    ).toEqual([
      'john.doe+sales@acme.io',
      'support@help.acme.io',
      'first@acme.io',
      'press@acme.io',
      'jobs@acme.co.uk',
    ]);
  });

  it('never joins neighbouring text nodes into an address', () => {
    expect(
      emails('<span>john</span><span>@acme.io</span><b>mary@</b>acme.io<i>x</i>@<i>acme.io</i>'),
    ).toEqual([]);
  });

  it('reads no attribute but a mailto href', () => {
    expect(
      emails(
        '<img alt="alt@acme.io" title="title@acme.io" src="x.png"><input placeholder="ph@acme.io" value="v@acme.io">' +
          '<div data-email="data@acme.io"></div><a href="https://acme.io/?to=link@acme.io">x</a>',
      ),
    ).toEqual([]);
  });

  it('skips script, style, noscript and template text', () => {
    expect(
      emails(
        '<script>var e = "js@acme.io";</script><style>/* css@acme.io */</style><noscript>ns@acme.io</noscript>' +
          '<template><p>tpl@acme.io</p></template><svg><style>svg@acme.io</style></svg><p>real@acme.io</p>',
      ),
    ).toEqual(['real@acme.io']);
  });

  it('rejects image names and unknown or reserved top-level domains', () => {
    expect(
      emails(
        '<p>logo@2x.png icon@3x.webp hero@1.5x.jpg a@b.test x@localhost y@acme.local z@acme.123 ok@acme.dev</p>',
      ),
    ).toEqual(['ok@acme.dev']);
  });

  it('drops the RFC 2606 example domains: samples, not contacts', () => {
    expect(
      emails('<p>e.g. you@example.com, me@mail.example.org, us@example.net; write to team@acme.io</p>'),
    ).toEqual(['team@acme.io']);
  });

  it('does not decode obfuscated addresses (character references are the address itself)', () => {
    expect(
      emails('<p>name [at] acme [dot] io, name(at)acme.io, name at acme dot io, name&#64;acme&#46;io</p>'),
    ).toEqual(['name@acme.io']);
  });

  it('finds nothing in what only contains an address: handles, cut words, malformed parts', () => {
    expect(
      emails(
        "<p>@alice@mastodon.social josé@acme.io o'brien@acme.ie user@acme.io@evil.com é.garcia@acme.io " +
          'a..b@acme.io .a@acme.io a.@acme.io a@acme..io a@-acme.io a@acme-.io a@acme.i0 a@acme.io_x ' +
          `a@exämple.com ${'x'.repeat(65)}@acme.io a@${'b'.repeat(64)}.io @acme.io a@ @</p>`,
      ),
    ).toEqual([]);
  });

  it('keeps at most 100 addresses', () => {
    const list = Array.from({ length: 150 }, (_, i) => `<li>person${i}@acme.io</li>`).join('');
    const found = emails(`<ul>${list}</ul>`);
    expect(found).toHaveLength(100);
    expect(found[99]).toBe('person99@acme.io');
  });

  it('scans the first 100 KB of a text node, cut at a whitespace, and stays linear on hostile text', () => {
    const filler = 'word '.repeat(25_000);
    expect(emails(`<p>head@acme.io ${filler} tail@acme.io</p>`)).toEqual(['head@acme.io']);
    // Nothing found, and the scan ends: one that backtracked catastrophically would not end within
    // the test's timeout (how fast it is, is no test's business).
    expect(
      emails(`<p>${'@'.repeat(90_000)}</p><p>${`${'a'.repeat(63)}@${'b'.repeat(200)}`.repeat(350)}</p>`),
    ).toEqual([]);
    expect(emails(`<p>${'a@'.repeat(45_000)}</p><p>${'a.'.repeat(45_000)}@acme.io</p>`)).toEqual([]);
  });
});

describe('phone numbers', () => {
  it('finds international numbers written with + on a page of no known country', () => {
    expect(
      phones(
        '<ul><li>US +1 (212) 555-0147</li><li>UK +44 20 7946 0958</li><li>DE +49 30 901820</li>' +
          '<li>FR +33 1 42 68 53 00</li><li>IN +91-98765-43210</li><li>BR +55 11 3003-1234</li>' +
          '<li>JP +81 3-3224-9999</li><li>AU +61 2 9374 4000</li><li>again: +44 (0)20 7946 0958</li></ul>',
      ),
    ).toEqual([
      '+12125550147',
      '+442079460958',
      '+4930901820',
      '+33142685300',
      '+919876543210',
      '+551130031234',
      '+81332249999',
      '+61293744000',
    ]);
  });

  it.each([
    [
      'US',
      'https://acme.com/',
      { lang: 'en-US' },
      '(212) 555-0147, 212.555.0148, 1-800-555-0199',
      ['+12125550147', '+12125550148', '+18005550199'],
    ],
    ['GB', 'https://acme.co.uk/', {}, '020 7946 0958 or (020) 7946 0959', ['+442079460958', '+442079460959']],
    [
      'DE',
      'https://acme.de/',
      {},
      'Tel. Nr.: 030 901820, Fax (030) 901821, 030/901822',
      ['+4930901820', '+4930901821', '+4930901822'],
    ],
    ['FR', 'https://acme.fr/', {}, '01 42 68 53 00 ou 01.42.68.53.01', ['+33142685300', '+33142685301']],
    [
      'IN',
      'https://acme.com/',
      { lang: 'en-IN' },
      '022 2266 5577, mobile 98765 43210',
      ['+912222665577', '+919876543210'],
    ],
    [
      'BR',
      'https://acme.com/',
      { lang: 'pt-BR' },
      '(11) 3003-1234 e (11) 98765-4321',
      ['+551130031234', '+5511987654321'],
    ],
    ['JP', 'https://acme.jp/', {}, '03-3224-9999、090-1234-5678', ['+81332249999', '+819012345678']],
    [
      'AU',
      'http://127.0.0.1/',
      { head: addressIn('AU') },
      '(02) 9374 4000 or 0412 345 678',
      ['+61293744000', '+61412345678'],
    ],
  ])('finds national formats with the page country (%s)', (_, url, options, text, expected) => {
    expect(phones(`<p>${text}</p>`, url, options)).toEqual(expected);
  });

  it('takes no national-format number on a page whose country is unknown', () => {
    expect(phones('<p>020 7946 0958, (212) 555-0147, 030 901820, 01 42 68 53 00</p>')).toEqual([]);
  });

  it('requires the national prefix where the country writes one, and 6 digits for a bare national number', () => {
    const gb = { url: 'https://acme.co.uk/' };
    expect(phones('<p>1234567890, 2079460958, Part no. 1234-5678-90</p>', gb.url)).toEqual([]);
    expect(phones('<p>1234567890, 3782 822463 10005</p>', 'https://acme.de/')).toEqual([]);
    expect(phones('<p>Postcode 75008, card 4111</p>', 'https://acme.lu/')).toEqual([]);
    expect(phones('<p>Tél. 26 12 34 56</p>', 'https://acme.lu/')).toEqual(['+35226123456']);
  });

  it('reads tel: links: %-decoded, without parameters, national ones with the page country', () => {
    expect(
      phones(
        '<a href="tel:+1-212-555-0147;ext=12">call</a><a href="TEL:020%207946%200958">call</a>' +
          '<a href="tel:7042;phone-context=acme.co.uk">x</a><a href="tel:12">x</a><a href="tel:%E0%A4%A">x</a>',
        'https://acme.co.uk/',
      ),
    ).toEqual(['+12125550147', '+442079460958']);
    expect(phones('<a href="tel:020%207946%200958">call</a>')).toEqual([]);
  });

  it('keeps each number once, in document order, extensions dropped', () => {
    expect(
      phones(
        '<a href="tel:+442079460958">+44 20 7946 0958</a><p>Tel: 212 555 0147 ext. 12</p><p>+44 (0)207 946 0958</p>',
        'https://acme.com/',
        { lang: 'en-US' },
      ),
    ).toEqual(['+442079460958', '+12125550147']);
  });

  it('does not join a number split across elements', () => {
    expect(phones('<p><span>+44 20</span><span>7946 0958</span></p><p>+49 30<br>901820</p>')).toEqual([]);
  });

  it('skips script, style, noscript and template text', () => {
    expect(
      phones(
        '<script>"+44 20 7946 0958"</script><style>/* +49 30 901820 */</style><noscript>+33 1 42 68 53 00</noscript>' +
          '<template>+81 3-3224-9999</template><p>+61 2 9374 4000</p>',
      ),
    ).toEqual(['+61293744000']);
  });

  const real = '<p>Call us: +44 20 7946 0958</p>';
  it.each([
    // [what, page URL, decoy text]
    ['ISO date (DK)', 'https://acme.dk/', 'Updated 2024-05-12'],
    ['dotted date (DE)', 'https://acme.de/', 'Stand: 12.05.2024'],
    ['slashed date (US)', 'https://acme.us/', 'Posted 12/05/2024'],
    ['date and time (IN)', 'https://acme.in/', 'Mon 12.05.2024 – 10:00'],
    ['US price', 'https://acme.us/', 'Now $1,299.00, was $2,125,551,234'],
    ['euro price (DE)', 'https://acme.de/', 'Preis: 1.299,00 € oder 393.426,85 €'],
    ['grouped price (ES)', 'https://acme.es/', 'Total € 512 022 241'],
    ['grouped price (SE)', 'https://acme.se/', 'Pris 12 500 000 kr'],
    ['order number (US)', 'https://acme.us/', 'Order #2125551234 shipped'],
    ['order number (BR)', 'https://acme.com.br/', 'Order 2125551234'],
    ['order number (FR)', 'https://acme.fr/', 'Commande: order no 0123456789, #123456789'],
    ['IPv4 address (US)', 'https://acme.us/', 'Server 123.126.45.150 and 192.168.100.254'],
    ['version strings (US)', 'https://acme.us/', 'v1.2.3, Windows 10.0.19045, build 10.0.19045.3930'],
    ['card numbers (DE)', 'https://acme.de/', '4111 1111 1111 1111, 0954 0624 2185 1343, 3782 822463 10005'],
    ['ISBN (US)', 'https://acme.us/', 'ISBN 2-7654-1005-4, ISBN 978-3-16-148410-0'],
    ['ISBN (DE)', 'https://acme.de/', 'ISBN-10: 0-306-40615-2'],
    ['product codes (DE)', 'https://acme.de/', 'UPC 036000291452'],
    ['long IDs (IT)', 'https://acme.it/', 'ID 12345678901234, ref 39369864231608, 39369864231608'],
    ['thousands (US)', 'https://acme.us/', 'Population 12 345 678 901'],
    ['times (GB)', 'https://acme.co.uk/', 'Open 10:30-11:45 and 12:00 - 18:30'],
    ['postal codes at home (GB)', 'https://acme.co.uk/', 'London SW1A 1AA'],
    ['postal codes at home (FR)', 'https://acme.fr/', '75008 Paris'],
    ['postal codes at home (DE)', 'https://acme.de/', '10115 Berlin'],
    ['postal codes at home (IN)', 'https://acme.in/', 'New Delhi 110001'],
    ['postal codes at home (JP)', 'https://acme.jp/', '〒100-0001 Tokyo'],
    ['postal codes at home (BR)', 'https://acme.com.br/', 'CEP 01310-200 São Paulo'],
    ['postal codes at home (US)', 'https://acme.us/', 'Mountain View, CA 94043-1351'],
    ['foreign postal codes (PL)', 'https://acme.pl/', 'CA 94043-1351'],
    ['foreign postal codes (IT)', 'https://acme.it/', '01310-200 São Paulo'],
    ['year ranges (LV)', 'https://acme.lv/', '(c) 2005-2024, 1990 – 2024'],
    ['decimals (US)', 'https://acme.us/', 'pi is 3.14159265358, x = 15.153346788'],
    ['coordinates (PL)', 'https://acme.pl/', 'Lat 48.8583701, 2.2944813'],
  ])('finds no phone number in %s', (_, url, decoy) => {
    expect(phones(`${real}<p>${decoy}</p>`, url)).toEqual(['+442079460958']);
  });

  it('keeps at most 100 numbers', () => {
    const list = Array.from({ length: 120 }, (_, i) => `<li>+44 20 7946 ${String(i).padStart(4, '0')}</li>`);
    const found = phones(`<ul>${list.join('')}</ul>`);
    expect(found).toHaveLength(100);
    expect(found[99]).toBe('+442079460099');
  });

  // Seconds of CPU on a loaded machine: the outcome is asserted, not the time, and the test's
  // timeout only catches a hang.
  it('stays bounded on a page of many digits', () => {
    const digits = Array.from({ length: 40_000 }, (_, i) => `${i}.${i * 7}`).join(' ');
    expect(phones(`<p>${digits}</p><p>${digits}</p>`, 'https://acme.de/')).toEqual([]);
  });
});

describe('inferCountry', () => {
  const country = (url: string, options: PageOptions = {}, body = '') =>
    inferCountry(page(body, options), url);

  it('reads the region of <html lang>', () => {
    expect(country(NO_COUNTRY_URL, { lang: 'en-GB' })).toBe('GB');
    expect(country(NO_COUNTRY_URL, { lang: 'zh-Hant-TW' })).toBe('TW');
    expect(country(NO_COUNTRY_URL, { lang: 'en_au' })).toBe('AU');
    expect(country(NO_COUNTRY_URL, { lang: 'en-UK' })).toBe('GB');
    expect(country(NO_COUNTRY_URL, { lang: 'en' })).toBeNull();
    expect(country(NO_COUNTRY_URL, { lang: 'es-419' })).toBeNull();
    expect(country(NO_COUNTRY_URL, { lang: '!!' })).toBeNull();
  });

  it("reads the page host's ccTLD, not the generic ones", () => {
    expect(country('https://www.acme.de/kontakt')).toBe('DE');
    expect(country('https://shop.acme.co.uk/')).toBe('GB');
    expect(country('https://acme.com.br/')).toBe('BR');
    for (const url of [
      'https://acme.io/',
      'https://acme.co/',
      'https://acme.ai/',
      'https://acme.com/',
      'https://acme.eu/',
    ]) {
      expect(country(url)).toBeNull();
    }
    expect(country('http://10.0.0.1/')).toBeNull();
    expect(country('not a url')).toBeNull();
  });

  it('reads addressCountry from JSON-LD: a code, a name in English or the page language, a Country', () => {
    expect(country(NO_COUNTRY_URL, { head: addressIn('fr') })).toBe('FR');
    expect(country(NO_COUNTRY_URL, { head: addressIn('United Kingdom') })).toBe('GB');
    expect(country(NO_COUNTRY_URL, { head: addressIn('UK') })).toBe('GB');
    expect(country(NO_COUNTRY_URL, { head: addressIn('USA') })).toBe('US');
    expect(country(NO_COUNTRY_URL, { lang: 'de', head: addressIn('Deutschland') })).toBe('DE');
    expect(country(NO_COUNTRY_URL, { head: addressIn('Deutschland') })).toBeNull();
    const graph =
      '<script type="application/ld+json">{ broken</script><script type="Application/LD+JSON">' +
      '{"@graph":[{"@type":"WebSite"},{"@type":"Organization","location":{"address":' +
      '{"addressCountry":{"@type":"Country","name":"Germany"}}}}]}</script>';
    expect(country(NO_COUNTRY_URL, { head: graph })).toBe('DE');
    expect(country(NO_COUNTRY_URL, { head: `${addressIn('Atlantis')}${addressIn('JP')}` })).toBe('JP');
  });

  it('reads addressCountry from microdata', () => {
    const address = (inner: string) =>
      `<div itemscope itemtype="https://schema.org/PostalAddress">${inner}</div>`;
    expect(country(NO_COUNTRY_URL, {}, address('<span itemprop="addressCountry">Australia</span>'))).toBe(
      'AU',
    );
    expect(
      country(NO_COUNTRY_URL, {}, address('<meta itemprop="addressCountry" content="NZ">New Zealand')),
    ).toBe('NZ');
  });

  it('prefers the address, then the ccTLD, then the lang region', () => {
    expect(country('https://acme.de/', { lang: 'en-US', head: addressIn('FR') })).toBe('FR');
    expect(country('https://acme.de/', { lang: 'en-US' })).toBe('DE');
    expect(country('https://acme.com/', { lang: 'en-US' })).toBe('US');
  });
});
