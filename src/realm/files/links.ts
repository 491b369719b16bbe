// Finds the uploads a message links: `/user_uploads/<path_id>` in its content, relative or absolute.
import { isPathId } from './names.js';

const LINK = /\/user_uploads\/([^\s)\]>"'<?#]+)/g;

/** The distinct path IDs linked in Markdown `content`, decoded, in order of appearance. */
export function uploadPathIds(content: string): string[] {
  // Most messages link no upload: no scan for them.
  if (!content.includes('/user_uploads/')) return [];
  const out = new Set<string>();
  for (const m of content.matchAll(LINK)) {
    let pathId: string;
    try {
      pathId = decodeURIComponent(m[1]!);
    } catch {
      continue;
    }
    if (isPathId(pathId)) out.add(pathId);
  }
  return [...out];
}
