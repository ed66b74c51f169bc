/** What a form did, said to the reader in the site's chrome (the newsletter's "thank you"). */
export function MessagePage({ heading, message }: { heading: string; message: string }) {
  return (
    <div className="error-page">
      <h1>{heading}</h1>
      <p>{message}</p>
      <p>
        <a href="/">Go to the front page</a>
      </p>
    </div>
  );
}
