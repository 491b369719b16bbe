// The records of files: uploads (attachments), image thumbnails, custom emoji and realm exports (as the repositories return them).

export interface Attachment {
  id: number;
  realmId: number;
  ownerId: number;
  pathId: string;
  name: string;
  contentType: string;
  size: number;
  /** Milliseconds since the epoch. */
  createTime: number;
}

export type NewAttachment = Omit<Attachment, 'id' | 'createTime'>;

/** A message that links an attachment, as far as download access needs to know. */
export interface LinkingMessage {
  messageId: number;
  /** null for a direct message. */
  channelId: number | null;
  /** Whether the user asking has a user_messages row for it (received it, or read it in protected history). */
  received: boolean;
}

/** What is left to do after rows are deleted: remove the stored files, tell the owners. */
export interface DeletedAttachment {
  id: number;
  ownerId: number;
  pathId: string;
}

export interface ThumbnailFormat {
  maxWidth: number;
  maxHeight: number;
  animated: boolean;
  extension: 'webp';
}

/** A thumbnail that was made (kept in image_attachments.thumbnails). */
export interface StoredThumbnail extends ThumbnailFormat {
  width: number;
  height: number;
  byteSize: number;
  contentType: string;
}

/** What an uploaded image's header said, and the thumbnails made of it so far (the reference's ImageAttachment). */
export interface ImageAttachment {
  pathId: string;
  realmId: number;
  width: number;
  height: number;
  frames: number;
  contentType: string;
  thumbnails: StoredThumbnail[];
}

export interface CustomEmoji {
  id: number;
  name: string;
  /** The image's name below /user_avatars/<realm_id>/emoji/images/. */
  fileName: string;
  authorId: number | null;
  deactivated: boolean;
}

export interface RealmExportRow {
  id: number;
  actingUserId: number;
  exportType: 1 | 2;
  requested: Date;
  succeeded: Date | null;
  failed: Date | null;
  deleted: Date | null;
  storageKey: string | null;
}
