/** A screen of the console's next part: its heading, and where its data is today. */
export function AreaScreen({ title, about }: { title: string; about: string }) {
  return (
    <section>
      <h1>{title}</h1>
      <p>{about}</p>
      <p>
        Until its screen is here, the same data is in the API: see the <a href="/docs">API reference</a>.
      </p>
    </section>
  );
}
