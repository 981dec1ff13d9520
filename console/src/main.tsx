import { render } from 'preact';

const root = document.getElementById('app');
if (root !== null) render(<p>webcap console</p>, root);
