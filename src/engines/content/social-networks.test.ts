import { describe, expect, it } from 'vitest';
import { isSocialProfile } from './social-networks.js';

const PROFILES = [
  'https://twitter.com/examplenews',
  'https://x.com/example_news/',
  'https://mobile.twitter.com/example',
  'https://x.com/i/communities/1234567890',
  'https://www.facebook.com/examplenews/',
  'https://m.facebook.com/example.page',
  'https://web.facebook.com/example',
  'https://fb.com/example',
  'https://www.facebook.com/profile.php?id=100012345678',
  'https://www.facebook.com/groups/examplegroup/',
  'https://www.facebook.com/pages/Example-Cafe/123456789',
  'https://www.instagram.com/example.shop/',
  'https://instagr.am/example',
  'https://www.linkedin.com/in/jane-doe-123/',
  'https://linkedin.com/company/example-inc',
  'https://uk.linkedin.com/school/example-university',
  'https://www.linkedin.com/showcase/example-labs/',
  'https://www.youtube.com/@ExampleChannel',
  'https://youtube.com/channel/UCabcdefghijklmnopqrstuv',
  'https://www.youtube.com/c/ExampleChannel',
  'https://www.youtube.com/user/examplechannel',
  'https://m.youtube.com/GoogleDevelopers',
  'https://www.tiktok.com/@example.shop',
  'https://github.com/octocat',
  'https://github.com/orgs/example-org',
  'https://www.pinterest.com/exampleshop/',
  'https://pinterest.co.uk/exampleshop',
  'https://fr.pinterest.com/exampleshop/',
  'https://www.reddit.com/r/typescript/',
  'https://old.reddit.com/user/example',
  'https://reddit.com/u/example',
  'https://www.threads.net/@example',
  'https://www.threads.com/@example',
  'https://bsky.app/profile/example.bsky.social',
  'https://bsky.app/profile/did:plc:abc123xyz',
  'https://mastodon.social/@example',
  'https://hachyderm.io/@example',
  'https://example.social/@someone@mastodon.social',
  'https://discord.gg/abcDEF123',
  'https://discord.com/invite/abcDEF123',
  'https://t.me/example_channel',
  'https://t.me/s/example_channel',
  'https://telegram.me/example_channel',
  'https://wa.me/15551234567',
  'https://www.whatsapp.com/channel/0029VaExample',
  'https://chat.whatsapp.com/AbCdEfGhIjK',
  'https://vimeo.com/examplestudio',
  'https://vimeo.com/channels/staffpicks',
  'https://www.twitch.tv/example_streamer',
  'https://www.snapchat.com/add/example',
  'https://example.tumblr.com/',
  'https://www.tumblr.com/example',
  'https://soundcloud.com/example-band',
  'https://medium.com/@example',
  'https://example.medium.com/',
  'https://substack.com/@example',
  'https://example.substack.com/',
  'https://dribbble.com/example',
  'https://www.behance.net/example',
  'https://open.spotify.com/artist/0OdUWJ0sBjDrqHygGUXeCF',
  'https://open.spotify.com/show/4rOoJ6Egrf8K2IrywzwOMk',
  'https://www.patreon.com/example',
  'https://www.flickr.com/photos/example/',
  'https://www.quora.com/profile/Jane-Doe',
  'https://vk.com/example',
  'https://linktr.ee/example',
  'https://example.bandcamp.com/',
  'https://www.producthunt.com/@example',
  'http://twitter.com/examplenews',
];

const NOT_PROFILES = [
  // X / Twitter
  'https://twitter.com/intent/tweet?url=https%3A%2F%2Fexample.com',
  'https://twitter.com/share?url=https%3A%2F%2Fexample.com',
  'https://x.com/login',
  'https://x.com/home',
  'https://x.com/search?q=example',
  'https://x.com/hashtag/example',
  'https://x.com/explore',
  'https://x.com/privacy',
  'https://x.com/tos',
  'https://x.com/example/status/1234567890',
  'https://x.com/i/flow/login',
  'https://x.com/',
  // Facebook
  'https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Fexample.com',
  'https://www.facebook.com/sharer.php?u=https%3A%2F%2Fexample.com',
  'https://www.facebook.com/dialog/share?app_id=1',
  'https://www.facebook.com/login.php',
  'https://www.facebook.com/policies',
  'https://www.facebook.com/tr?id=1&ev=PageView',
  'https://www.facebook.com/examplenews/posts/123',
  'https://www.facebook.com/profile.php',
  'https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com',
  // Instagram
  'https://www.instagram.com/p/Cabc123/',
  'https://www.instagram.com/reel/Cabc123/',
  'https://www.instagram.com/accounts/login/',
  'https://www.instagram.com/explore/',
  // LinkedIn
  'https://www.linkedin.com/shareArticle?mini=true&url=https%3A%2F%2Fexample.com',
  'https://www.linkedin.com/sharing/share-offsite/?url=https%3A%2F%2Fexample.com',
  'https://www.linkedin.com/login',
  'https://www.linkedin.com/feed/',
  'https://www.linkedin.com/in/',
  'https://www.linkedin.com/pulse/some-article-jane-doe',
  // YouTube
  'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
  'https://www.youtube.com/results?search_query=example',
  'https://www.youtube.com/embed/dQw4w9WgXcQ',
  'https://www.youtube.com/shorts/abc123',
  'https://www.youtube.com/playlist?list=PL123',
  'https://youtu.be/dQw4w9WgXcQ',
  // TikTok
  'https://www.tiktok.com/@example/video/1234567890',
  'https://www.tiktok.com/login',
  'https://www.tiktok.com/explore',
  // GitHub
  'https://github.com/login',
  'https://github.com/features',
  'https://github.com/about',
  'https://github.com/settings',
  'https://github.com/octocat/hello-world',
  'https://github.com/',
  'https://gist.github.com/octocat',
  // Pinterest
  'https://www.pinterest.com/pin/create/button/?url=https%3A%2F%2Fexample.com',
  'https://www.pinterest.com/pin/123456/',
  'https://www.pinterest.com/search/pins/?q=example',
  // Reddit
  'https://www.reddit.com/submit?url=https%3A%2F%2Fexample.com',
  'https://www.reddit.com/r/typescript/comments/abc/title/',
  'https://www.reddit.com/login',
  // Threads, Bluesky
  'https://www.threads.net/@example/post/Cabc',
  'https://www.threads.net/login',
  'https://bsky.app/intent/compose?text=hello',
  'https://bsky.app/profile/example.bsky.social/post/3kabc',
  // Discord
  'https://discord.com/login',
  'https://discord.com/channels/123/456',
  // Telegram
  'https://t.me/share/url?url=https%3A%2F%2Fexample.com',
  'https://t.me/share',
  // WhatsApp
  'https://wa.me/?text=hello',
  'https://api.whatsapp.com/send?phone=15551234567',
  'https://web.whatsapp.com/',
  // Vimeo
  'https://vimeo.com/123456789',
  'https://player.vimeo.com/video/123456789',
  // Others
  'https://www.tumblr.com/dashboard',
  'https://www.tumblr.com/',
  'https://api.tumblr.com/',
  'https://example.tumblr.com/post/123',
  'https://soundcloud.com/discover',
  'https://soundcloud.com/example-band/a-track',
  'https://medium.com/p/abc123',
  'https://help.medium.com/',
  'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC',
  'https://www.spotify.com/us/premium/',
  'https://www.patreon.com/login',
  'https://vk.com/share.php?url=https%3A%2F%2Fexample.com',
  // Not social networks at all
  'https://example.com/',
  'https://example.com/about',
  'https://github.io/',
  'http://127.0.0.1/@admin',
  'http://localhost/@admin',
  'mailto:someone@example.com',
];

describe('isSocialProfile', () => {
  it.each(PROFILES)('%s is a profile', (url) => {
    expect(isSocialProfile(new URL(url))).toBe(true);
  });

  it.each(NOT_PROFILES)('%s is not a profile', (url) => {
    expect(isSocialProfile(new URL(url))).toBe(false);
  });

  describe('Fediverse by path shape', () => {
    it('takes /@user and /@user@instance on any host for a profile', () => {
      expect(isSocialProfile(new URL('https://fosstodon.org/@someone'))).toBe(true);
      expect(isSocialProfile(new URL('https://social.example.org/@some_one@fosstodon.org/'))).toBe(true);
    });

    it('only exactly that path, with a Mastodon user name', () => {
      expect(isSocialProfile(new URL('https://fosstodon.org/@someone/109876543210'))).toBe(false);
      expect(isSocialProfile(new URL('https://fosstodon.org/users/someone'))).toBe(false);
      expect(isSocialProfile(new URL('https://fosstodon.org/@some-one'))).toBe(false);
      expect(isSocialProfile(new URL('https://fosstodon.org/@'))).toBe(false);
    });

    it('not on sites known to use /@name for something else', () => {
      expect(isSocialProfile(new URL('https://unsplash.com/@photographer'))).toBe(false);
      expect(isSocialProfile(new URL('https://www.figma.com/@designer'))).toBe(false);
      expect(isSocialProfile(new URL('https://observablehq.com/@someone'))).toBe(false);
    });
  });
});
