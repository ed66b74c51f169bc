import type { ReactElement } from 'react';
import UniversalRouter, { type Routes } from 'universal-router';
import { articlePath } from './content';
import { articleIdPattern, findSection, type SectionSlug } from './sections';
import type { PageData } from './store/page-data';
import { isTagSlug, tagName, tagPath } from './tags';
import { ArticlePage } from './pages/ArticlePage';
import { FrontPage } from './pages/FrontPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { SectionPage } from './pages/SectionPage';
import { TagPage } from './pages/TagPage';

/** How long caches may keep the page; the server turns it into Cache-Control. */
export type CacheClass = 'front' | 'section' | 'tag' | 'article' | 'notFound';

export interface PageResult {
  kind: 'page';
  status: 200 | 404;
  title: string;
  description: string;
  cache: CacheClass;
  /** Path of the canonical URL; null on pages that should not be indexed. */
  canonicalPath: string | null;
  ogType: 'website' | 'article';
  ogImage?: string;
  /** The article this page shows: the browser counts a view of it for most read. */
  articleId?: string;
  component: ReactElement;
}

export interface RedirectResult {
  kind: 'redirect';
  status: 301;
  location: string;
}

export type RouteResult = PageResult | RedirectResult;

export interface RouteContext {
  data: PageData;
}

export const siteName = 'Kiosk';

function notFound(): PageResult {
  return {
    kind: 'page',
    status: 404,
    title: `Page not found — ${siteName}`,
    description: 'There is nothing at this address.',
    cache: 'notFound',
    canonicalPath: null,
    ogType: 'website',
    component: <NotFoundPage />,
  };
}

function param(value: string | string[] | undefined): string {
  return typeof value === 'string' ? value : '';
}

const routes: Routes<RouteResult, RouteContext> = [
  {
    path: '',
    async action({ data }) {
      const page = await data.frontPage();
      return {
        kind: 'page',
        status: 200,
        title: `${siteName} — news as it breaks`,
        description: page.lead.lead,
        cache: 'front',
        canonicalPath: '/',
        ogType: 'website',
        component: <FrontPage />,
      };
    },
  },
  {
    path: '/tag/:slug',
    async action({ data }, params) {
      const slug = param(params.slug);
      if (!isTagSlug(slug)) return notFound();
      const page = await data.tag(slug);
      if (!page) return notFound();
      const name = tagName(slug);
      return {
        kind: 'page',
        status: 200,
        title: `${name} — ${siteName}`,
        description: `Stories about ${name.toLowerCase()} from ${siteName}, newest first.`,
        cache: 'tag',
        canonicalPath: tagPath(slug),
        ogType: 'website',
        component: <TagPage slug={slug} />,
      };
    },
  },
  {
    path: '/:section',
    async action({ data }, params) {
      const section = findSection(param(params.section));
      if (!section) return notFound();
      const page = await data.section(section.slug);
      if (!page) return notFound();
      return {
        kind: 'page',
        status: 200,
        title: `${section.name} — ${siteName}`,
        description: `The latest ${section.name.toLowerCase()} stories from ${siteName}.`,
        cache: 'section',
        canonicalPath: `/${section.slug}`,
        ogType: 'website',
        component: <SectionPage slug={section.slug} />,
      };
    },
  },
  {
    path: '/:section/:id',
    async action({ data }, params) {
      const section = findSection(param(params.section));
      const id = param(params.id);
      if (!section || !articleIdPattern.test(id)) return notFound();
      const [article] = await Promise.all([data.article(id), data.latest(), data.mostReadWithPage()]);
      if (!article) return notFound();
      // An article linked under the wrong section still has one address.
      if (article.section !== (section.slug as SectionSlug)) {
        return { kind: 'redirect', status: 301, location: articlePath(article) };
      }
      return {
        kind: 'page',
        status: 200,
        title: `${article.title} — ${siteName}`,
        description: article.lead,
        cache: 'article',
        canonicalPath: articlePath(article),
        ogType: 'article',
        ogImage: article.image.src,
        articleId: article.id,
        component: <ArticlePage id={article.id} />,
      };
    },
  },
  {
    path: '/*all',
    action: () => notFound(),
  },
];

export const router = new UniversalRouter<RouteResult, RouteContext>(routes);

/** Resolves a pathname to one result, loading the page's data on the way (into the store, or the server's state). */
export async function resolveRoute(pathname: string, data: PageData): Promise<RouteResult> {
  const result = await router.resolve({ pathname, data });
  return result ?? notFound();
}
