import { render } from 'preact';
import { App } from './app/app.tsx';
import './styles/base.css';
import './styles/layout.css';
import './styles/components.css';
import './styles/charts.css';

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
