import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.js';

describe('redactUrl', () => {
  it('hides the values of credential-like query parameters and keeps the rest', () => {
    expect(redactUrl('https://feeds.example/list.csv?apikey=s3cr3t&format=csv&auth-key=k&sig=abc')).toBe(
      'https://feeds.example/list.csv?apikey=%5Bredacted%5D&format=csv&auth-key=%5Bredacted%5D&sig=%5Bredacted%5D',
    );
  });

  it('hides user info, and leaves a URL without secrets and a non-URL as they are', () => {
    expect(redactUrl('https://user:pw@feeds.example/x')).not.toContain('pw');
    expect(redactUrl('https://feeds.example/taxii2/?page=2')).toBe('https://feeds.example/taxii2/?page=2');
    expect(redactUrl('not a url')).toBe('not a url');
  });
});
