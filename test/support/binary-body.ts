import request from 'supertest';

/** A supertest parser that collects a binary body (a PDF) as a Buffer: `.buffer(true).parse(binary)`. */
export function binary(response: request.Response, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('end', () => callback(null, Buffer.concat(chunks)));
}
