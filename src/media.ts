// Our own images (/media/<id>.svg) come in several widths (server/media.ts); an image on
// another https host is offered as it is.
import { pathUnder } from './request-kinds';

export const mediaWidths = [320, 480, 640, 960, 1200] as const;

const ownMedia = new RegExp(`^${pathUnder('media', '')}(\\d{18})\\.svg$`);

export function mediaSrcSet(src: string): string | undefined {
  const match = ownMedia.exec(src);
  if (!match) return undefined;
  return mediaWidths.map((w) => `${pathUnder('media', `${match[1]}-${w}w.svg`)} ${w}w`).join(', ');
}
