import type { Image } from '../content';
import { mediaSrcSet } from '../media';

/** Width and height always, so the box is reserved before the image arrives (no layout shift). */
export function ResponsiveImage({
  image,
  sizes,
  className,
  eager = false,
  priority = false,
  alt,
}: {
  image: Image;
  sizes: string;
  className?: string;
  eager?: boolean;
  /** The page's largest image (the article's hero): fetched before anything else. */
  priority?: boolean;
  /** The image's own alt text unless the image only repeats a linked headline (then ''). */
  alt?: string;
}) {
  return (
    <img
      className={className}
      src={image.src}
      srcSet={mediaSrcSet(image.src)}
      sizes={sizes}
      alt={alt ?? image.alt}
      width={image.width}
      height={image.height}
      loading={eager ? 'eager' : 'lazy'}
      decoding="async"
      fetchPriority={priority ? 'high' : undefined}
    />
  );
}
