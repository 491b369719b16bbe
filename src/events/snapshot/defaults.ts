// Snapshot sections of features this server does not have (yet): each is there, when asked for, with the value
// the reference gives a realm that does not use the feature, so clients that ask for every section find it.
// Listed first in the snapshot: a domain that builds one of these features replaces its default section.
import type { Section } from './types.js';

export const defaultSections: Record<string, Section> = {
  // No onboarding tours or one-time notices, and no navigation tour video.
  onboarding_steps: () => ({ onboarding_steps: [], navigation_tour_video_url: null }),
  default_stream_groups: () => ({ realm_default_stream_groups: [] }),
  // Full-text search uses the 'simple' configuration: it drops no words.
  stop_words: () => ({ stop_words: [] }),
  // No Zoom integration, no GIPHY key, no billing.
  video_calls: () => ({ has_zoom_token: false }),
  giphy: () => ({ giphy_api_key: '' }),
  realm_billing: () => ({ realm_billing: { has_pending_sponsorship_request: false } }),
};
