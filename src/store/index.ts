import { combineReducers, configureStore, type ThunkAction, type UnknownAction } from '@reduxjs/toolkit';
import type { ContentClient } from '../content';
import { articlesSlice, frontPageSlice, latestSlice, sectionsSlice } from './content-slices';

const rootReducer = combineReducers({
  frontPage: frontPageSlice.reducer,
  sections: sectionsSlice.reducer,
  articles: articlesSlice.reducer,
  latest: latestSlice.reducer,
});

export type RootState = ReturnType<typeof rootReducer>;

export interface ThunkExtra {
  content: ContentClient;
}

/**
 * One store per request on the server and one per page load in the browser; never a
 * module-level store, or one reader's data would leak into another's page.
 */
export function createStore(content: ContentClient, preloadedState?: Partial<RootState>) {
  return configureStore({
    reducer: rootReducer,
    preloadedState,
    middleware: (getDefault) =>
      getDefault({
        thunk: { extraArgument: { content } satisfies ThunkExtra },
        // The checks walk the whole state on every dispatch; worth it only while developing.
        serializableCheck: false,
        immutableCheck: false,
      }),
    devTools: false,
  });
}

export type AppStore = ReturnType<typeof createStore>;
export type AppDispatch = AppStore['dispatch'];
export type AppThunk<R> = ThunkAction<R, RootState, ThunkExtra, UnknownAction>;
