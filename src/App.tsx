import type { ReactElement } from 'react';
import { Provider } from 'react-redux';
import { Layout } from './components/Layout';
import type { AppStore } from './store';

/** The same tree on both sides: what the server renders is what the browser hydrates. */
export function App({ store, page }: { store: AppStore; page: ReactElement }) {
  return (
    <Provider store={store}>
      <Layout>{page}</Layout>
    </Provider>
  );
}
